// PackedBlock (private to damka_probe): every kind and length round-trips.
// BlockCache: a sharded cache (capacity of several shards) answers what was
// inserted, stays within its capacity and evicts, with threads inserting at
// once; two caches, each with its own epoch, read and evicting at once.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "../format/src/block_cache.hpp"

namespace damka::cache_detail {
namespace {

TEST(PackedBlock, RoundTrips) {
  std::mt19937 rng(5);
  for (std::uint16_t max_code : {2, 3, 200, 255, 4000}) {
    for (std::size_t n : {1, 3, 4, 31, 32, 33, 100, 8192, 65536, 65533}) {
      std::vector<std::uint16_t> codes(n);
      for (auto& c : codes) c = static_cast<std::uint16_t>(rng() % (max_code + 1));
      const auto kind = PackedBlock::kind_for(max_code);
      const PackedBlock b = PackedBlock::pack(codes, kind);
      ASSERT_EQ(b.size(), n);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(b.get(static_cast<std::uint32_t>(i)), codes[i]) << "max " << max_code << " n " << n << " i " << i;
      const std::size_t want = kind == PackedBlock::Kind::Bits2 ? (n + 3) / 4 : kind == PackedBlock::Kind::U8 ? n : 2 * n;
      EXPECT_EQ(b.bytes(), want);
    }
  }
}

// 32 MiB: 8 shards of 4 MiB.  Blocks of 8192 one-byte codes (code = (block +
// position) % 251) from two tables, inserted and looked up by 4 threads;
// 2 x 3000 blocks (about 49 MB) do not fit, so blocks are evicted.
TEST(BlockCache, ShardedCacheAnswersWhatWasInsertedAndStaysWithinItsCapacity) {
  constexpr std::size_t kCapacity = std::size_t{32} << 20;
  constexpr std::uint32_t kCodes = 8192;
  constexpr std::uint64_t kBlocks = 3000;
  BlockCache cache(kCapacity);
  BlockTable tables[2] = {BlockTable(kBlocks), BlockTable(kBlocks)};
  auto code_of = [](int t, std::uint64_t b, std::uint32_t i) {
    return static_cast<std::uint16_t>((b * (t + 1) + i) % 251);
  };
  std::atomic<std::uint64_t> wrong{0}, hits{0};
  // `rounds` random lookups from `seed`, each miss inserting its block.
  auto look_up = [&](std::uint64_t seed, int rounds) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint16_t> codes(kCodes);
    for (int round = 0; round < rounds; ++round) {
      const int t = static_cast<int>(rng() % 2);
      const std::uint64_t b = rng() % kBlocks;
      const auto i = static_cast<std::uint32_t>(rng() % kCodes);
      std::uint16_t got = 0;
      if (cache.lookup(tables[t], b, i, &got)) {
        ++hits;
        if (got != code_of(t, b, i)) ++wrong;
        continue;
      }
      for (std::uint32_t j = 0; j < kCodes; ++j) codes[j] = code_of(t, b, j);
      cache.insert(tables[t], b, PackedBlock::pack(codes, PackedBlock::Kind::U8));
    }
  };
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th) threads.emplace_back([&, th] { look_up(static_cast<std::uint64_t>(th), 4000); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(hits.load(), 0u);
  EXPECT_LE(cache.stats().bytes, kCapacity);
  // How full the cache ends up above depends on the threads' timing (on a
  // loaded machine a reader descheduled while it looks keeps the blocks
  // retired meanwhile from being freed, and their shard may evict every
  // block it holds: 7.6 of 32 MiB once under ctest -j2).  With no reader
  // left, one thread's misses fill every shard.
  look_up(99, 8000);
  EXPECT_EQ(wrong.load(), 0u);
  const BlockCache::Stats st = cache.stats();
  EXPECT_LE(st.bytes, kCapacity);
  EXPECT_GT(st.bytes, kCapacity / 2);  // every shard holds blocks
  EXPECT_LT(st.blocks, 2 * kBlocks);   // some were evicted
  // Every block still held answers its codes.
  std::uint64_t held = 0;
  for (int t = 0; t < 2; ++t)
    for (std::uint64_t b = 0; b < kBlocks; ++b) {
      std::uint16_t got = 0;
      if (!cache.lookup(tables[t], b, 77, &got)) continue;
      ++held;
      EXPECT_EQ(got, code_of(t, b, 77));
    }
  EXPECT_EQ(held, st.blocks);
}

// One shard of 256 KiB and blocks of 4096 codes: nearly every insert evicts,
// and reclaims (the asymmetric fence's heavy half, then freeing) run while
// the other threads read blocks.  A reader must never see a freed or wrong
// block (ASan/TSan builds would also report a use after free), and once the
// readers are done the cache is back within its capacity.
TEST(BlockCache, ReadersNeverSeeAReclaimedBlock) {
  constexpr std::size_t kCapacity = std::size_t{256} << 10;
  constexpr std::uint32_t kCodes = 4096;
  constexpr std::uint64_t kBlocks = 400;
  BlockCache cache(kCapacity);
  BlockTable table(kBlocks);
  auto code_of = [](std::uint64_t b, std::uint32_t i) { return static_cast<std::uint16_t>((b * 7 + i) % 253); };
  std::atomic<std::uint64_t> wrong{0}, hits{0}, lookups{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th)
    threads.emplace_back([&, th] {
      std::mt19937_64 rng(100 + th);
      std::vector<std::uint16_t> codes(kCodes);
      for (int round = 0; round < 20000; ++round) {
        const std::uint64_t b = rng() % kBlocks;
        const auto i = static_cast<std::uint32_t>(rng() % kCodes);
        std::uint16_t got = 0;
        ++lookups;
        if (cache.lookup(table, b, i, &got)) {
          ++hits;
          if (got != code_of(b, i)) ++wrong;
          continue;
        }
        for (std::uint32_t j = 0; j < kCodes; ++j) codes[j] = code_of(b, j);
        cache.insert(table, b, PackedBlock::pack(codes, PackedBlock::Kind::U8));
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(hits.load(), 0u);
  const BlockCache::Stats st = cache.stats();
  EXPECT_LE(st.bytes, kCapacity);
  EXPECT_LT(st.blocks, kBlocks);
  // Four threads, fewer than the cache's counter pairs: every look-up counted.
  EXPECT_EQ(st.hits, hits.load());
  EXPECT_EQ(st.hits + st.misses, lookups.load());
}

// Each cache owns its epoch, while the thread records readers announce in
// are shared: two small caches read and evicting at once from the same
// threads (each look-up announcing its own cache's epoch) must still answer
// only their own blocks, free what they evict once readers are done, and
// stay within their capacities.
TEST(BlockCache, TwoCachesEvictingAtOnceKeepTheirOwnEpochs) {
  constexpr std::size_t kCapacity = std::size_t{256} << 10;
  constexpr std::uint32_t kCodes = 4096;
  constexpr std::uint64_t kBlocks = 300;
  BlockCache caches[2] = {BlockCache(kCapacity), BlockCache(kCapacity)};
  BlockTable tables[2] = {BlockTable(kBlocks), BlockTable(kBlocks)};
  auto code_of = [](int c, std::uint64_t b, std::uint32_t i) {
    return static_cast<std::uint16_t>((b * (c + 3) + i) % 241);
  };
  std::atomic<std::uint64_t> wrong{0}, hits{0};
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th)
    threads.emplace_back([&, th] {
      std::mt19937_64 rng(200 + th);
      std::vector<std::uint16_t> codes(kCodes);
      for (int round = 0; round < 20000; ++round) {
        const int c = static_cast<int>(rng() % 2);
        const std::uint64_t b = rng() % kBlocks;
        const auto i = static_cast<std::uint32_t>(rng() % kCodes);
        std::uint16_t got = 0;
        if (caches[c].lookup(tables[c], b, i, &got)) {
          ++hits;
          if (got != code_of(c, b, i)) ++wrong;
          continue;
        }
        for (std::uint32_t j = 0; j < kCodes; ++j) codes[j] = code_of(c, b, j);
        caches[c].insert(tables[c], b, PackedBlock::pack(codes, PackedBlock::Kind::U8));
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(hits.load(), 0u);
  for (int c = 0; c < 2; ++c) {
    const BlockCache::Stats st = caches[c].stats();
    EXPECT_LE(st.bytes, kCapacity) << "cache " << c;
    EXPECT_LT(st.blocks, kBlocks) << "cache " << c;
    // Every block still held answers its own codes.
    for (std::uint64_t b = 0; b < kBlocks; ++b) {
      std::uint16_t got = 0;
      if (caches[c].lookup(tables[c], b, 5, &got)) {
        EXPECT_EQ(got, code_of(c, b, 5)) << "cache " << c << " block " << b;
      }
    }
  }
}

TEST(AsymmetricFence, HeavyHalfOrdersOrSaysItCannot) {
  const AsymmetricFence fence;
  fence.light();
  // Linux kernels since 4.14 have membarrier; a refusal (seccomp) makes both
  // halves ordinary fences, which also order: heavy() is true either way.
  EXPECT_TRUE(fence.heavy());
  const AsymmetricFence again;  // registration happens once, the result is shared
  EXPECT_EQ(again.asymmetric(), fence.asymmetric());
}

}  // namespace
}  // namespace damka::cache_detail
