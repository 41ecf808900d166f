// The block cache: packed blocks, per-file block tables, epochs, CLOCK
// eviction (block_cache.hpp).
#include "block_cache.hpp"

#include <algorithm>
#include <bit>
#include <new>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace damka::cache_detail {

PackedBlock PackedBlock::pack(std::span<const std::uint16_t> codes, Kind kind) {
  PackedBlock b;
  const std::size_t n = codes.size();
  switch (kind) {
    case Kind::Bits2: {
      b = allocate(kind, static_cast<std::uint32_t>(n), (n + 3) / 4);
      std::uint8_t* out = b.data();
      const auto* in = reinterpret_cast<const unsigned char*>(codes.data());
      const std::size_t full = n / 4;
      std::size_t i = 0;
#if defined(__AVX2__)
      // 32 codes at a time: narrow to bytes, then c0 + 4 c1 (maddubs) and
      // (c0 + 4 c1) + 16 (c2 + 4 c3) (madd), then the low byte of each 32-bit sum.
      const __m256i w4 = _mm256_set1_epi16(0x0401);
      const __m256i w16 = _mm256_set1_epi32(0x00100001);
      const __m256i low_bytes =
          _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                           0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
      for (; 4 * i + 32 <= n; i += 8) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&codes[4 * i]));
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&codes[4 * i + 16]));
        const __m256i bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, c), 0xD8);
        const __m256i sums = _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, w4), w16);
        const __m256i packed = _mm256_shuffle_epi8(sums, low_bytes);
        const std::uint32_t lo = static_cast<std::uint32_t>(_mm256_extract_epi32(packed, 0));
        const std::uint32_t hi = static_cast<std::uint32_t>(_mm256_extract_epi32(packed, 4));
        std::memcpy(out + i, &lo, 4);
        std::memcpy(out + i + 4, &hi, 4);
      }
#endif
      // Four 16-bit codes (each < 4) in a 64-bit word c0 | c1 << 16 | c2 << 32
      // | c3 << 48 (little-endian) fold into the byte c0 | c1 << 2 | c2 << 4 | c3 << 6.
      for (; i < full; ++i) {
        std::uint64_t w;
        std::memcpy(&w, in + 8 * i, 8);
        if constexpr (std::endian::native == std::endian::big) {
          const std::uint16_t* c = &codes[4 * i];
          w = c[0] | (std::uint64_t{c[1]} << 16) | (std::uint64_t{c[2]} << 32) | (std::uint64_t{c[3]} << 48);
        }
        w |= w >> 14;
        w |= w >> 28;
        out[i] = static_cast<std::uint8_t>(w);
      }
      if (n % 4 != 0) {
        std::uint8_t last = 0;
        for (std::size_t j = 4 * full; j < n; ++j) last |= static_cast<std::uint8_t>(codes[j] << (2 * (j % 4)));
        out[full] = last;
      }
      break;
    }
    case Kind::U8: {
      b = allocate(kind, static_cast<std::uint32_t>(n), n);
      std::uint8_t* out = b.data();
      const std::uint16_t* in = codes.data();
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(in[i]);
      break;
    }
    case Kind::U16:
      b = allocate(kind, static_cast<std::uint32_t>(n), 2 * n);
      std::memcpy(b.data(), codes.data(), 2 * n);
      break;
  }
  return b;
}

PackedBlock PackedBlock::allocate(Kind kind, std::uint32_t count, std::size_t nbytes) {
  PackedBlock b;
  b.kind_ = kind;
  b.count_ = count;
  b.nbytes_ = nbytes;
  b.buffer_ = std::make_unique_for_overwrite<std::uint8_t[]>(kPrefixBytes + nbytes);
  return b;
}

PackedBlock PackedBlock::bits2(std::uint32_t count) { return allocate(Kind::Bits2, count, (std::size_t{count} + 3) / 4); }

namespace {

// ---- epochs --------------------------------------------------------------
//
// One record per thread that has probed (process-wide, reused after the
// thread ends), holding the epoch it announced while reading a block, or 0.

struct alignas(64) ThreadRecord {
  std::atomic<std::uint64_t> epoch{0};
  std::atomic<bool> in_use{false};
  unsigned index = 0;
  ThreadRecord* next = nullptr;
};

std::atomic<ThreadRecord*> g_records{nullptr};
std::atomic<unsigned> g_record_count{0};

ThreadRecord* acquire_record() {
  for (ThreadRecord* r = g_records.load(std::memory_order_acquire); r != nullptr; r = r->next) {
    bool expected = false;
    if (!r->in_use.load(std::memory_order_relaxed) &&
        r->in_use.compare_exchange_strong(expected, true, std::memory_order_acquire))
      return r;
  }
  auto* r = new ThreadRecord;  // never freed: records are reused
  r->in_use.store(true, std::memory_order_relaxed);
  r->index = g_record_count.fetch_add(1, std::memory_order_relaxed);
  ThreadRecord* head = g_records.load(std::memory_order_relaxed);
  do {
    r->next = head;
  } while (!g_records.compare_exchange_weak(head, r, std::memory_order_release, std::memory_order_relaxed));
  return r;
}

thread_local ThreadRecord* t_record = nullptr;

struct RecordOwner {
  ThreadRecord* record = nullptr;
  ~RecordOwner() {
    if (record != nullptr) {
      record->epoch.store(0, std::memory_order_seq_cst);
      record->in_use.store(false, std::memory_order_release);
    }
    t_record = nullptr;
  }
};
thread_local RecordOwner t_owner;

ThreadRecord* my_record() {
  if (t_record == nullptr) {
    t_record = acquire_record();
    t_owner.record = t_record;
  }
  return t_record;
}

// The smallest epoch announced by a reader now, or ~0 if none reads.
std::uint64_t min_active_epoch() {
  std::uint64_t m = ~std::uint64_t{0};
  for (ThreadRecord* r = g_records.load(std::memory_order_acquire); r != nullptr; r = r->next) {
    const std::uint64_t e = r->epoch.load(kSeqCstEpochs ? std::memory_order_seq_cst : std::memory_order_acquire);
    if (e != 0 && e < m) m = e;
  }
  return m;
}

// Bytes charged for a block besides its payload (an estimate of the
// allocations' headers and the bookkeeping).
constexpr std::size_t kBlockOverhead = 96;

}  // namespace

// A cached block's bookkeeping, constructed in the prefix of its
// PackedBlock's allocation; the codes follow at kPrefixBytes.
struct CachedBlock {
  CachedBlock(PackedBlock::Kind k, std::size_t c) : kind(k), charge(c) {}
  std::atomic<std::uint8_t> referenced{1};
  PackedBlock::Kind kind;
  std::atomic<CachedBlock*>* slot = nullptr;  // where the BlockTable points to it
  std::size_t charge;
  const std::uint8_t* codes() const { return reinterpret_cast<const std::uint8_t*>(this) + PackedBlock::kPrefixBytes; }

  // Takes over a PackedBlock's allocation.
  static CachedBlock* adopt(PackedBlock block, std::size_t charge) {
    const PackedBlock::Kind kind = block.kind();
    std::uint8_t* mem = block.release().release();
    return new (mem) CachedBlock(kind, charge);
  }
  static void destroy(CachedBlock* b) {
    b->~CachedBlock();
    delete[] reinterpret_cast<std::uint8_t*>(b);
  }
};
static_assert(sizeof(CachedBlock) <= PackedBlock::kPrefixBytes);
static_assert(alignof(CachedBlock) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

// ---- BlockTable -----------------------------------------------------------

BlockTable::BlockTable(std::uint64_t num_blocks)
    : num_pages_((num_blocks + kPageSize - 1) / kPageSize),
      pages_(std::make_unique<std::atomic<Page*>[]>(std::max<std::uint64_t>(num_pages_, 1))) {}

BlockTable::~BlockTable() {
  for (std::uint64_t i = 0; i < num_pages_; ++i) delete pages_[i].load(std::memory_order_relaxed);
}

std::atomic<CachedBlock*>& BlockTable::slot(std::uint64_t b) {
  std::atomic<Page*>& p = pages_[b >> kPageBits];
  Page* page = p.load(std::memory_order_acquire);
  if (page == nullptr) {
    // Two shards may create the same page at once: one wins.
    auto fresh = std::make_unique<Page>();
    if (p.compare_exchange_strong(page, fresh.get(), std::memory_order_acq_rel, std::memory_order_acquire))
      page = fresh.release();
  }
  return page->slots[b & (kPageSize - 1)];
}

// ---- BlockCache -----------------------------------------------------------

BlockCache::BlockCache(std::size_t capacity_bytes)
    : capacity_(capacity_bytes),
      counters_(std::make_unique<Counter[]>(kCounters)),
      num_shards_(std::clamp<std::size_t>(capacity_bytes / kMinShardBytes, 1, kMaxShards)),
      shards_(std::make_unique<Shard[]>(num_shards_)) {
  for (std::size_t i = 0; i < num_shards_; ++i) shards_[i].capacity = capacity_ / num_shards_;
}

BlockCache::~BlockCache() {
  // No reader may be inside this cache any more (the Tablebase is going).
  for (std::size_t i = 0; i < num_shards_; ++i) {
    for (CachedBlock* b : shards_[i].resident) CachedBlock::destroy(b);
    for (const Retired& r : shards_[i].retired) CachedBlock::destroy(r.block);
  }
}

BlockCache::Shard& BlockCache::shard_of(const BlockTable& table, std::uint64_t b) const {
  if (num_shards_ == 1) return shards_[0];
  const std::uint64_t h = (reinterpret_cast<std::uintptr_t>(&table) >> 4) * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full;
  return shards_[(h >> 32) % num_shards_];
}

bool BlockCache::lookup(const BlockTable& table, std::uint64_t b, std::uint32_t index, std::uint16_t* code) {
  constexpr auto kAnnounce = kSeqCstEpochs ? std::memory_order_seq_cst : std::memory_order_relaxed;
  constexpr auto kLoad = kSeqCstEpochs ? std::memory_order_seq_cst : std::memory_order_acquire;
  ThreadRecord* rec = my_record();
  Counter& counter = counters_[rec->index % kCounters];
  const std::atomic<CachedBlock*>* slot = table.find(b);
  if (slot != nullptr) {
    // Announce, fence, look: an evictor either sees the announcement or has
    // cleared the pointer before we load it (asymmetric_fence.hpp).
    rec->epoch.store(epoch_.load(std::memory_order_acquire), kAnnounce);
    fence_.light();
    CachedBlock* block = slot->load(kLoad);
    if (block != nullptr) {
      *code = PackedBlock::get(block->kind, block->codes(), index);
      if (block->referenced.load(std::memory_order_relaxed) == 0)
        block->referenced.store(1, std::memory_order_relaxed);
      rec->epoch.store(0, std::memory_order_release);
      bump(counter.hits);
      return true;
    }
    rec->epoch.store(0, std::memory_order_release);
  }
  bump(counter.misses);
  return false;
}

void BlockCache::insert(BlockTable& table, std::uint64_t b, PackedBlock block) {
  Shard& sh = shard_of(table, b);
  const std::size_t charge = block.bytes() + kBlockOverhead;
  if (charge > sh.capacity) return;
  std::unique_ptr<CachedBlock, void (*)(CachedBlock*)> cb(CachedBlock::adopt(std::move(block), charge),
                                                          &CachedBlock::destroy);
  std::lock_guard lock(sh.mu);
  // Block b's pointer is set and cleared only under its shard's mutex.
  std::atomic<CachedBlock*>& slot = table.slot(b);
  if (slot.load(std::memory_order_relaxed) != nullptr) return;  // another thread read it meanwhile
  if (!make_room(sh, charge)) return;  // readers still hold the evicted blocks: not cached this time
  cb->slot = &slot;
  sh.bytes += charge;
  sh.resident.push_back(cb.get());
  sh.peak_bytes = std::max(sh.peak_bytes, sh.bytes + sh.retired_bytes);
  slot.store(cb.release(), kSeqCstEpochs ? std::memory_order_seq_cst : std::memory_order_release);
}

// Evicts and reclaims until resident and retired blocks with `charge` more
// fit the shard's share; false if they cannot (every block is evicted and
// readers still look at some).  Retired blocks count: their memory is still
// held, so a cache never holds more than its capacity.  Reclaiming costs a
// membarrier system call (~1.5 us): it runs once the retired blocks weigh
// 1/16 of the share and number at least kMinReclaimBlocks (in a small cache
// 1/16 is a handful of blocks: a system call every few misses), or weigh 1/4
// of the share whatever their number, or when nothing is left to evict; at
// most once per insert.
bool BlockCache::make_room(Shard& sh, std::size_t charge) {
  bool reclaimed = false;
  while (sh.bytes + sh.retired_bytes + charge > sh.capacity) {
    const bool due = sh.retired_bytes > sh.capacity / 16 &&
                     (sh.retired.size() >= kMinReclaimBlocks || sh.retired_bytes > sh.capacity / 4);
    if (!reclaimed && !sh.retired.empty() && (due || sh.resident.empty())) {
      reclaimed = true;
      reclaim(sh);
      continue;
    }
    if (sh.resident.empty()) return false;
    evict_one(sh);
  }
  return true;
}

// Clears one block's pointer and retires it.
void BlockCache::evict_one(Shard& sh) {
  // Two sweeps clear every bit; readers setting bits again meanwhile cannot
  // keep us going longer than that.
  for (std::size_t steps = 0;; ++steps) {
    if (sh.hand >= sh.resident.size()) sh.hand = 0;
    CachedBlock* b = sh.resident[sh.hand];
    if (b->referenced.load(std::memory_order_relaxed) != 0 && steps < 2 * sh.resident.size()) {
      b->referenced.store(0, std::memory_order_relaxed);  // a second chance
      ++sh.hand;
      continue;
    }
    sh.resident[sh.hand] = sh.resident.back();
    sh.resident.pop_back();
    // Ordered before reclaim's reading of the announcements by its heavy fence.
    b->slot->store(nullptr, kSeqCstEpochs ? std::memory_order_seq_cst : std::memory_order_relaxed);
    const std::uint64_t tag = epoch_.fetch_add(1, std::memory_order_seq_cst) + 1;
    sh.bytes -= b->charge;
    sh.retired_bytes += b->charge;
    sh.retired.push_back({b, tag});
    return;
  }
}

// Frees the retired blocks no reader can still be looking at.
void BlockCache::reclaim(Shard& sh) {
  if (sh.retired.empty()) return;
  if (!fence_.heavy()) return;  // keep them rather than free what a reader may see
  const std::uint64_t active = min_active_epoch();
  std::size_t kept = 0;
  for (const Retired& r : sh.retired) {
    if (r.epoch <= active) {
      sh.retired_bytes -= r.block->charge;
      CachedBlock::destroy(r.block);
    } else {
      sh.retired[kept++] = r;
    }
  }
  sh.retired.resize(kept);
}

BlockCache::Stats BlockCache::stats() {
  Stats st;
  for (int i = 0; i < kCounters; ++i) {
    st.hits += counters_[i].hits.load(std::memory_order_relaxed);
    st.misses += counters_[i].misses.load(std::memory_order_relaxed);
  }
  for (std::size_t i = 0; i < num_shards_; ++i) {
    Shard& sh = shards_[i];
    std::lock_guard lock(sh.mu);
    reclaim(sh);
    st.blocks += sh.resident.size();
    st.bytes += sh.bytes + sh.retired_bytes;
    st.peak_bytes += sh.peak_bytes;
  }
  st.reads = reads_.load(std::memory_order_relaxed);
  return st;
}

}  // namespace damka::cache_detail
