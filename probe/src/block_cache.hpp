// Private to damka_probe: decompressed table blocks in a bounded, sharded LRU.
//
// A block is stored compactly: WDL codes (0..2) at 2 bits each, other codes
// in one byte when they all fit, else two.  Keys are (file id, block): each
// key hashes to one of up to 64 shards, each with its own mutex, hash map and
// LRU list, so threads probing different blocks rarely meet.  A look-up reads
// the wanted code while holding the shard's lock; nothing else is locked.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace damka::probe_detail {

class PackedBlock {
 public:
  enum class Kind : std::uint8_t { Bits2, U8, U16 };
  PackedBlock() = default;
  // Codes of a WDL table (all <= 2) may be packed as 2-bit values.
  static PackedBlock pack(std::span<const std::uint16_t> codes, bool wdl);

  std::uint16_t get(std::uint32_t i) const {
    const std::uint8_t* p = bytes_.get();
    switch (kind_) {
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
  std::uint32_t size() const { return count_; }
  std::size_t bytes() const { return nbytes_; }

 private:
  Kind kind_ = Kind::U8;
  std::uint32_t count_ = 0;
  std::size_t nbytes_ = 0;
  std::unique_ptr<std::uint8_t[]> bytes_;
};

class BlockCache {
 public:
  explicit BlockCache(std::size_t capacity_bytes);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  static std::uint64_t key(std::uint32_t file_id, std::uint64_t block) {
    return (std::uint64_t{file_id} << 40) | block;
  }
  // If the block is cached: its code `index` in *code, the block made most
  // recently used, true.
  bool lookup(std::uint64_t key, std::uint32_t index, std::uint16_t* code);
  // Adds a block (a no-op if it is there already, or larger than a shard).
  void insert(std::uint64_t key, PackedBlock block);
  void count_read() { reads_.fetch_add(1, std::memory_order_relaxed); }

  std::size_t capacity() const { return capacity_; }
  struct Stats {
    std::uint64_t hits = 0, misses = 0, blocks = 0, bytes = 0, reads = 0;
  };
  Stats stats() const;

 private:
  struct Node {
    std::uint64_t key = 0;
    Node* prev = nullptr;
    Node* next = nullptr;
    PackedBlock block;
    std::size_t charge = 0;
  };
  struct alignas(64) Shard {
    std::mutex mu;
    std::unordered_map<std::uint64_t, Node*> map;
    Node head;  // sentinel: head.next is the most recently used
    std::size_t bytes = 0;
    std::uint64_t hits = 0, misses = 0;
  };
  Shard& shard_of(std::uint64_t key) const {
    return shards_[((key * 0x9E3779B97F4A7C15ull) >> 40) & shard_mask_];
  }
  static void unlink(Node* n) {
    n->prev->next = n->next;
    n->next->prev = n->prev;
  }
  static void push_front(Shard& s, Node* n) {
    n->prev = &s.head;
    n->next = s.head.next;
    s.head.next->prev = n;
    s.head.next = n;
  }

  std::size_t capacity_;
  std::size_t shard_budget_;
  std::uint64_t shard_mask_;
  std::unique_ptr<Shard[]> shards_;
  std::atomic<std::uint64_t> reads_{0};
};

}  // namespace damka::probe_detail
