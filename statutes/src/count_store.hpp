// Private to damka_statutes: where a ValueSource keeps the statute-aware
// counts it computed, per (book and clause, canonical material): in memory
// (MemoryCountStore), or in temporary table files read back through a
// bounded block cache (FileCountStore).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "damka/cached_table.hpp"
#include "damka/expected.hpp"
#include "damka/results_journal.hpp"
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

  // A store that keeps its counts across runs (FileCountStore with a keep
  // folder) gives back what an earlier run computed; the others nothing.
  // The counts of a key an earlier run kept, from now on found by find();
  // nullptr when there are none (or the material's tables changed since).
  // Not thread-safe.
  virtual Expected<const StatuteCounts*> recall(const CountKey& key) {
    (void)key;
    return nullptr;
  }
  // A material's result (JSON text of an object) kept under `what` by an
  // earlier run (keep_result), or nothing.  Not thread-safe.
  virtual Expected<std::optional<std::string>> recall_result(const Material& canonical, const std::string& what) {
    (void)canonical;
    (void)what;
    return std::optional<std::string>();
  }
  virtual Status keep_result(const Material& canonical, const std::string& what, const std::string& json) {
    (void)canonical;
    (void)what;
    (void)json;
    return {};
  }
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
  // The counts kept in `keep_dir` (made when missing, never removed) across
  // runs, with a journal (results_journal.hpp, "statutes.journal" there) of
  // which file holds which counts and of the results kept by keep_result:
  // each under its material, given back while the material's table files
  // under `tables_root` (WDL, DTW and DTC) are unchanged.
  FileCountStore(const Rules& rules, std::filesystem::path keep_dir, std::filesystem::path tables_root,
                 std::uint64_t cache_bytes, Env& env = default_env());
  ~FileCountStore() override;
  const StatuteCounts* find(const CountKey& key) const override;
  Expected<std::unique_ptr<CountWriter>> write(const CountKey& key, std::uint64_t slots) override;
  Expected<const StatuteCounts*> recall(const CountKey& key) override;
  Expected<std::optional<std::string>> recall_result(const Material& canonical, const std::string& what) override;
  Status keep_result(const Material& canonical, const std::string& what, const std::string& json) override;

 private:
  class Table;
  class Writer;
  const Rules& rules_;
  Env& env_;
  // A kept material's journal entry ({"counts": {key: file}, "results":
  // {what: result}}), or an empty object; and its replacement.
  Expected<nlohmann::json> entry(const Material& canonical);
  Status put(const Material& canonical, const nlohmann::json& entry);
  Status open_journal();

  std::filesystem::path work_dir_, dir_;  // dir_: the temporary folder, once made (the keep folder)
  std::filesystem::path tables_root_;     // keeping: where the tables are
  bool keep_ = false;
  std::unique_ptr<ResultsJournal> journal_;  // keeping, once opened
  int files_ = 0;
  std::unique_ptr<TableCache> cache_;  // before tables_: their files hold blocks in it
  std::map<CountKey, std::unique_ptr<Table>> tables_;
};

}  // namespace damka
