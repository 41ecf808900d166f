// Private to damka_statutes: where a ValueSource keeps the statute-aware
// counts it computed, per (book and clause, canonical material): in memory
// (MemoryCountStore), or in temporary table files read back through a
// bounded block cache (FileCountStore).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "damka/cached_table.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/statutes.hpp"

namespace damka {

// Book name and clause id, and the canonical material.
using CountKey = std::pair<std::string, Material>;

// Receives one material's counts in slot order, then finish().  Not
// thread-safe.
class CountWriter {
 public:
  virtual ~CountWriter() = default;
  virtual Status add(std::span<const std::uint16_t> codes) = 0;
  // Every slot added: the counts become readable through the store.
  virtual Status finish() = 0;
};

class CountStore {
 public:
  virtual ~CountStore() = default;
  // The counts of a key, or nullptr if not stored (yet).  Thread-safe while
  // no writer finishes.
  virtual const StatuteCounts* find(const CountKey& key) const = 0;
  // A writer for a key's counts (`slots` of them).  Not thread-safe.
  virtual Expected<std::unique_ptr<CountWriter>> write(const CountKey& key, std::uint64_t slots) = 0;
};

// Counts held in memory (2 bytes a slot of every material computed).
class MemoryCountStore final : public CountStore {
 public:
  MemoryCountStore();
  ~MemoryCountStore() override;
  const StatuteCounts* find(const CountKey& key) const override;
  Expected<std::unique_ptr<CountWriter>> write(const CountKey& key, std::uint64_t slots) override;
  // The codes of a stored key, or nullptr.
  const std::vector<std::uint16_t>* codes(const CountKey& key) const;

 private:
  class Table;
  std::map<CountKey, std::unique_ptr<Table>> tables_;
};

// Counts written to table files (DTW metric, its zstd encoding: any u16
// code round-trips) in a folder made with mkdtemp under `work_dir` on the
// first write and removed (with its files) by the destructor; read back
// through one block cache of about `cache_bytes` (format's TableCache, as
// the probe reads tables: a hit takes no lock).  Memory: the cache, a writer's
// blocks while it writes, and a few bytes per block of every file.  The
// files are written, read, listed and removed through `env` (which must
// outlive the store); only the folder is made by mkdtemp (an Env makes no
// private temporary folders).  One thread at a time.
class FileCountStore final : public CountStore {
 public:
  FileCountStore(const Rules& rules, std::filesystem::path work_dir, std::uint64_t cache_bytes,
                 Env& env = default_env());
  ~FileCountStore() override;
  const StatuteCounts* find(const CountKey& key) const override;
  Expected<std::unique_ptr<CountWriter>> write(const CountKey& key, std::uint64_t slots) override;

 private:
  class Table;
  class Writer;
  const Rules& rules_;
  Env& env_;
  std::filesystem::path work_dir_, dir_;  // dir_: the temporary folder, once made
  int files_ = 0;
  std::unique_ptr<TableCache> cache_;  // before tables_: their files hold blocks in it
  std::map<CountKey, std::unique_ptr<Table>> tables_;
};

}  // namespace damka
