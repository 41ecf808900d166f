// The sharded LRU block cache (block_cache.hpp).
#include "block_cache.hpp"

#include <algorithm>

namespace damka::probe_detail {

PackedBlock PackedBlock::pack(std::span<const std::uint16_t> codes, bool wdl) {
  PackedBlock b;
  const std::size_t n = codes.size();
  b.count_ = static_cast<std::uint32_t>(n);
  std::uint16_t top = 0;
  for (std::uint16_t c : codes) top = std::max(top, c);
  if (wdl && top <= 3) {
    b.kind_ = Kind::Bits2;
    b.nbytes_ = (n + 3) / 4;
    b.bytes_ = std::make_unique_for_overwrite<std::uint8_t[]>(b.nbytes_);
    std::uint8_t* out = b.bytes_.get();
    const std::size_t full = n / 4;
    for (std::size_t i = 0; i < full; ++i) {
      const std::uint16_t* c = &codes[4 * i];
      out[i] = static_cast<std::uint8_t>(c[0] | (c[1] << 2) | (c[2] << 4) | (c[3] << 6));
    }
    if (n % 4 != 0) {
      std::uint8_t last = 0;
      for (std::size_t j = 4 * full; j < n; ++j) last |= static_cast<std::uint8_t>(codes[j] << (2 * (j % 4)));
      out[full] = last;
    }
  } else if (top <= 0xFF) {
    b.kind_ = Kind::U8;
    b.nbytes_ = n;
    b.bytes_ = std::make_unique_for_overwrite<std::uint8_t[]>(std::max<std::size_t>(n, 1));
    std::uint8_t* out = b.bytes_.get();
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(codes[i]);
  } else {
    b.kind_ = Kind::U16;
    b.nbytes_ = 2 * n;
    b.bytes_ = std::make_unique_for_overwrite<std::uint8_t[]>(std::max<std::size_t>(2 * n, 1));
    std::memcpy(b.bytes_.get(), codes.data(), 2 * n);
  }
  return b;
}

namespace {

// Shards: each should hold several blocks (a packed block is at most
// 16-32 KiB with the default block sizes), and at most 64.
int shard_count(std::size_t capacity) {
  int n = 1;
  while (n < 64 && capacity / static_cast<std::size_t>(2 * n) >= (std::size_t{256} << 10)) n *= 2;
  return n;
}

// Bytes charged for a node besides its payload: the node, the hash map's
// node and bucket, the allocator's headers (an estimate).
constexpr std::size_t kNodeOverhead = 128;

}  // namespace

BlockCache::BlockCache(std::size_t capacity_bytes) : capacity_(capacity_bytes) {
  const int n = shard_count(capacity_bytes);
  shard_mask_ = static_cast<std::uint64_t>(n - 1);
  shard_budget_ = capacity_bytes / static_cast<std::size_t>(n);
  shards_ = std::make_unique<Shard[]>(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) shards_[i].head.prev = shards_[i].head.next = &shards_[i].head;
}

BlockCache::~BlockCache() {
  for (std::uint64_t i = 0; i <= shard_mask_; ++i) {
    Shard& s = shards_[i];
    for (Node* n = s.head.next; n != &s.head;) {
      Node* next = n->next;
      delete n;
      n = next;
    }
  }
}

bool BlockCache::lookup(std::uint64_t key, std::uint32_t index, std::uint16_t* code) {
  Shard& s = shard_of(key);
  std::lock_guard lock(s.mu);
  const auto it = s.map.find(key);
  if (it == s.map.end()) {
    ++s.misses;
    return false;
  }
  ++s.hits;
  Node* n = it->second;
  if (s.head.next != n) {
    unlink(n);
    push_front(s, n);
  }
  *code = n->block.get(index);
  return true;
}

void BlockCache::insert(std::uint64_t key, PackedBlock block) {
  const std::size_t charge = block.bytes() + kNodeOverhead;
  if (charge > shard_budget_) return;
  auto node = std::make_unique<Node>();
  node->key = key;
  node->block = std::move(block);
  node->charge = charge;
  std::vector<Node*> evicted;
  {
    Shard& s = shard_of(key);
    std::lock_guard lock(s.mu);
    auto [it, inserted] = s.map.try_emplace(key, node.get());
    if (!inserted) return;  // another thread read it meanwhile
    Node* n = node.release();
    push_front(s, n);
    s.bytes += charge;
    while (s.bytes > shard_budget_ && s.head.prev != n) {
      Node* victim = s.head.prev;
      unlink(victim);
      s.map.erase(victim->key);
      s.bytes -= victim->charge;
      evicted.push_back(victim);
    }
  }
  for (Node* v : evicted) delete v;  // freed outside the lock
}

BlockCache::Stats BlockCache::stats() const {
  Stats st;
  for (std::uint64_t i = 0; i <= shard_mask_; ++i) {
    Shard& s = shards_[i];
    std::lock_guard lock(s.mu);
    st.hits += s.hits;
    st.misses += s.misses;
    st.blocks += s.map.size();
    st.bytes += s.bytes;
  }
  st.reads = reads_.load(std::memory_order_relaxed);
  return st;
}

}  // namespace damka::probe_detail
