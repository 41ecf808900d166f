// Private to damka_format (cached_table.hpp): decompressed table blocks in a bounded cache that
// threads read without taking any lock.
//
// Blocks are stored compactly (PackedBlock): codes up to 3 (WDL) at 2 bits,
// codes up to 255 in a byte, others in two bytes.
//
// Where a block is found: each table file has a BlockTable, an array of
// atomic pointers, one per block of the file (in pages allocated on first
// use).  A look-up loads the pointer and, if set, reads the code: no lock, no
// write to memory shared with other threads (except setting the block's
// "referenced" bit when it is clear).
//
// Freeing safely: a reader announces the cache's current epoch in its own
// thread record before loading a block pointer (the two separated by the
// light half of an asymmetric fence, asymmetric_fence.hpp: no locked
// instruction) and clears it after reading the code.  Evicting a block
// clears its pointer, advances the cache's epoch (a member, one counter per
// cache) to a new value E and retires the block with tag E; a reclaim (the
// heavy half of the fence, then a look at every record) frees it once every
// thread record is clear (0) or holds an epoch >= E (those readers loaded
// the pointer after it was cleared).  Thread records are one per thread
// (process-wide, reused after a thread ends) and shared by every cache: a
// record announcing another cache's epoch can only delay a reclaim (until
// that reader's look-up ends), never free a block a reader still sees.  Retired
// blocks count against the capacity until they are freed, so the cache
// never holds more than its capacity (a block that finds no room because
// readers still look at every evicted one is not kept).
// Reclaims are batched: a shard reclaims when its retired blocks weigh more
// than 1/16 of its share of the capacity and are at least 16 (or weigh more
// than 1/4 of it), so about 1/16 of the capacity (up to 1/4 in small caches)
// holds retired blocks rather than resident ones.
//
// Which block to evict: CLOCK (second chance), an approximation of LRU that
// needs no list update on a hit.  Inserting and evicting (the miss path,
// after a block has been read and decompressed) take a mutex: the cache is
// split into shards (up to 16, each at least 4 MiB of the capacity), each
// with its own mutex, CLOCK ring and share of the capacity; a block belongs
// to the shard its file and number hash to, so threads missing at once
// rarely wait on each other.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "asymmetric_fence.hpp"

namespace damka::cache_detail {

// A block's codes in their smallest form.  The bytes live behind a prefix
// of kPrefixBytes in the same allocation: when the cache takes the block it
// puts its bookkeeping (CachedBlock) in that prefix, so a cached probe finds
// the codes at a fixed offset from the block pointer (no second pointer to
// chase, and the two cache lines load in parallel).
class PackedBlock {
 public:
  enum class Kind : std::uint8_t { Bits2, U8, U16 };
  static constexpr std::size_t kPrefixBytes = 64;
  PackedBlock() = default;
  // The smallest kind holding codes up to max_code.
  static Kind kind_for(std::uint16_t max_code) {
    return max_code <= 3 ? Kind::Bits2 : max_code <= 0xFF ? Kind::U8 : Kind::U16;
  }
  // Every code must fit the kind (kind_for(the table's max_code)).
  static PackedBlock pack(std::span<const std::uint16_t> codes, Kind kind);
  // A Bits2 block of `count` codes whose bytes ((count + 3) / 4, at data())
  // the caller fills (TableReader::read_block_packed).
  static PackedBlock bits2(std::uint32_t count);
  std::uint8_t* data() { return buffer_.get() + kPrefixBytes; }

  // Code i of codes stored as `kind` at p.
  static std::uint16_t get(Kind kind, const std::uint8_t* p, std::uint32_t i) {
    switch (kind) {
      case Kind::Bits2: return (p[i >> 2] >> (2 * (i & 3))) & 3;
      case Kind::U8: return p[i];
      case Kind::U16: {
        std::uint16_t v;
        std::memcpy(&v, p + 2 * static_cast<std::size_t>(i), 2);
        return v;
      }
    }
    return 0;
  }
  std::uint16_t get(std::uint32_t i) const { return get(kind_, buffer_.get() + kPrefixBytes, i); }
  std::uint32_t size() const { return count_; }
  std::size_t bytes() const { return nbytes_; }
  Kind kind() const { return kind_; }
  // The whole allocation (prefix, then the bytes), handed over to the cache.
  std::unique_ptr<std::uint8_t[]> release() { return std::move(buffer_); }

 private:
  static PackedBlock allocate(Kind kind, std::uint32_t count, std::size_t nbytes);
  Kind kind_ = Kind::U8;
  std::uint32_t count_ = 0;
  std::size_t nbytes_ = 0;
  std::unique_ptr<std::uint8_t[]> buffer_;
};

struct CachedBlock;

// The block pointers of one table file.
class BlockTable {
 public:
  explicit BlockTable(std::uint64_t num_blocks);
  ~BlockTable();
  BlockTable(const BlockTable&) = delete;
  BlockTable& operator=(const BlockTable&) = delete;

  // The slot of block b, or nullptr if its page does not exist yet.
  std::atomic<CachedBlock*>* find(std::uint64_t b) const {
    Page* page = pages_[b >> kPageBits].load(std::memory_order_acquire);
    return page ? &page->slots[b & (kPageSize - 1)] : nullptr;
  }
  // The slot of block b, creating its page (thread-safe).
  std::atomic<CachedBlock*>& slot(std::uint64_t b);

 private:
  static constexpr int kPageBits = 10;
  static constexpr std::uint64_t kPageSize = std::uint64_t{1} << kPageBits;
  struct Page {
    std::atomic<CachedBlock*> slots[kPageSize] = {};
  };
  std::uint64_t num_pages_;
  std::unique_ptr<std::atomic<Page*>[]> pages_;
};

class BlockCache {
 public:
  explicit BlockCache(std::size_t capacity_bytes);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // If block b of the table is cached: its code `index` in *code, true.
  bool lookup(const BlockTable& table, std::uint64_t b, std::uint32_t index, std::uint16_t* code);
  // Adds block b of the table (a no-op if it is there already, larger than
  // its shard's share of the capacity, or finds no room), evicting others of
  // its shard to stay within that share.
  void insert(BlockTable& table, std::uint64_t b, PackedBlock block);
  void count_read() { reads_.fetch_add(1, std::memory_order_relaxed); }

  std::size_t capacity() const { return capacity_; }
  struct Stats {
    std::uint64_t hits = 0, misses = 0, blocks = 0, bytes = 0, reads = 0;
    // The most the shards ever held at once, retired blocks included (a sum
    // of per-shard peaks: an upper bound on the cache's peak).
    std::uint64_t peak_bytes = 0;
  };
  Stats stats();

 private:
  struct Retired {
    CachedBlock* block;
    std::uint64_t epoch;
  };
  struct Shard {
    std::mutex mu;  // everything below
    std::vector<CachedBlock*> resident;  // the CLOCK ring
    std::size_t hand = 0;
    std::size_t capacity = 0;
    std::size_t bytes = 0;  // resident blocks, charged with bookkeeping
    std::vector<Retired> retired;
    std::size_t retired_bytes = 0;
    std::size_t peak_bytes = 0;  // the most bytes + retired_bytes ever
  };
  Shard& shard_of(const BlockTable& table, std::uint64_t b) const;
  bool make_room(Shard& sh, std::size_t charge);  // sh.mu held
  void evict_one(Shard& sh);        // sh.mu held
  void reclaim(Shard& sh);           // sh.mu held

  // Hit and miss counts, one pair per thread record (records are used by
  // one thread at a time): a plain load and store, no locked instruction.
  // Beyond kCounters threads at once two may share a pair and lose a count.
  struct alignas(64) Counter {
    std::atomic<std::uint64_t> hits{0}, misses{0};
  };
  static void bump(std::atomic<std::uint64_t>& c) {
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  static constexpr int kCounters = 64;
  static constexpr std::size_t kMinReclaimBlocks = 16;
  static constexpr std::size_t kMaxShards = 16;
  static constexpr std::size_t kMinShardBytes = std::size_t{4} << 20;

  std::size_t capacity_;
  AsymmetricFence fence_;
  std::unique_ptr<Counter[]> counters_;  // by thread record, so threads rarely share one
  std::atomic<std::uint64_t> reads_{0};
  // The epoch readers announce and evictions advance (see the top); apart
  // from the counters above, which every read miss writes.
  alignas(64) std::atomic<std::uint64_t> epoch_{1};
  std::size_t num_shards_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace damka::cache_detail
