// One way to read stored values: a table file opened and checked
// (open_table.hpp) whose blocks are decoded once into a bounded block cache
// shared by every table of a reader (the probe's Tablebase).
//
// TableCache: decoded blocks of many tables within a byte budget, stored
// compactly (2 bits a code for WDL tables, a byte or two otherwise).  A hit
// takes no lock and writes no memory other threads share; a miss reads and
// decodes the block (TableReader::read_block: every read checked) and
// inserts it under one of up to 16 shard mutexes, evicting by CLOCK.  The
// design (epochs, asymmetric fences, shards) is described in
// format/src/block_cache.hpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/table_file.hpp"

namespace damka {

namespace cache_detail {
class BlockCache;
class BlockTable;
}  // namespace cache_detail

class TableCache {
 public:
  // Holds at most capacity_bytes of decoded blocks and their bookkeeping,
  // evicted blocks not yet freed included (block_cache.hpp); 0: no cache,
  // every read decodes its block.
  explicit TableCache(std::size_t capacity_bytes);
  ~TableCache();
  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  std::size_t capacity() const;
  struct Stats {
    std::uint64_t hits = 0, misses = 0;  // look-ups
    std::uint64_t blocks = 0, bytes = 0;  // held now
    std::uint64_t reads = 0;              // blocks read from files
    std::uint64_t peak_bytes = 0;         // the most held at once (at most the capacity)
  };
  // Cost: takes each shard's mutex in turn.  Thread-safe.
  Stats stats() const;

 private:
  friend class CachedTable;
  std::unique_ptr<cache_detail::BlockCache> cache_;
};

// A table file whose stored codes are read through a TableCache.  Every
// member is thread-safe; the cache and the Env must outlive the table.
class CachedTable {
 public:
  // open_table() (NotFound, Io, Corrupt as there), read through `cache`.
  static Expected<std::unique_ptr<CachedTable>> open(const std::filesystem::path& path, const Rules& rules,
                                                     const Material& canonical, Metric metric, TableCache& cache,
                                                     FileAccess access = FileAccess::Pread,
                                                     Env& env = default_env());
  ~CachedTable();
  CachedTable(const CachedTable&) = delete;
  CachedTable& operator=(const CachedTable&) = delete;

  const TableReader& reader() const { return *reader_; }
  const TableHeader& header() const { return reader_->header(); }

  // The stored code of `slot` (< header().slots) when its block is cached:
  // true and *code set; false otherwise (no I/O).  Cost: a hit is a few
  // loads (no lock).
  bool cached_code(std::uint64_t slot, std::uint16_t* code) const;
  // The stored code of `slot` (< header().slots): from the cache, or its
  // block read, checked, decoded and cached.  Errors: TableReader's
  // (read_block: Io may pass; Corrupt; a file changed on disk is Io with
  // reader().changed() set).  Cost: a miss reads and decodes one block.
  Status code(std::uint64_t slot, std::uint16_t* code) const;
  // code()'s miss path alone, for a caller that just missed with
  // cached_code(): reads, checks, decodes and caches the block.
  Status read_code(std::uint64_t slot, std::uint16_t* code) const;

 private:
  CachedTable() = default;
  std::unique_ptr<TableReader> reader_;
  TableCache* cache_ = nullptr;
  std::unique_ptr<cache_detail::BlockTable> blocks_;
  std::uint64_t block_size_ = 1;
  int block_shift_ = -1;  // log2(block_size) when a power of two
  std::uint8_t kind_ = 0;  // how its blocks are cached (PackedBlock::Kind)
};

}  // namespace damka
