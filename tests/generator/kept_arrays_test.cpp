// huge_resize and KeptArrays (generator/include/damka/huge_pages.hpp): a
// kept array resized keeps its first bytes (its pages, not a copy), whether
// it shrinks, grows in place or has to move; small arrays are fresh ones.
// KeptArrays makes arrays of the pages given back to it, and a BigVector
// with it as its pool takes its buffer from there and gives it back.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "damka/huge_pages.hpp"

namespace damka {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

void fill(void* p, std::size_t bytes, std::uint8_t seed) {
  auto* b = static_cast<std::uint8_t*>(p);
  for (std::size_t i = 0; i < bytes; i += 4096) b[i] = static_cast<std::uint8_t>(seed + i / 4096);
  b[bytes - 1] = seed;
}

bool filled(const void* p, std::size_t bytes, std::uint8_t seed) {
  const auto* b = static_cast<const std::uint8_t*>(p);
  for (std::size_t i = 0; i < bytes; i += 4096)
    if (b[i] != static_cast<std::uint8_t>(seed + i / 4096)) return false;
  return true;
}

TEST(HugeResize, ShrinkingKeepsTheArrayAndItsFirstBytes) {
  void* p = huge_alloc(16 * kMiB);
  fill(p, 16 * kMiB, 7);
  void* q = huge_resize(p, 16 * kMiB, 6 * kMiB + 5);
  EXPECT_EQ(q, p);
  EXPECT_TRUE(filled(q, 6 * kMiB, 7));
  static_cast<char*>(q)[6 * kMiB + 4] = 1;  // the last byte asked for is there
  huge_free(q, 6 * kMiB + 5);
}

TEST(HugeResize, GrowingKeepsTheFirstBytesInPlaceOrMoved) {
  // Once with the address space after the array left free, once with a
  // mapping placed right after it (the pages must move).
  for (const bool blocked : {false, true}) {
    void* p = huge_alloc(8 * kMiB);
    fill(p, 8 * kMiB, 3);
    void* block = nullptr;
    if (blocked) {
      block = ::mmap(static_cast<char*>(p) + 8 * kMiB, kHugePage, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                     -1, 0);
      // Taken already (by something else): growing in place fails all the same.
      if (block == MAP_FAILED) block = nullptr;
    }
    void* q = huge_resize(p, 8 * kMiB, 20 * kMiB);
    if (blocked) {
      EXPECT_NE(q, p);
    }
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(q) % kHugePage, 0u) << "stays 2 MiB aligned";
    EXPECT_TRUE(filled(q, 8 * kMiB, 3)) << (blocked ? "moved" : "in place or moved");
    fill(q, 20 * kMiB, 9);  // the new part is writable
    EXPECT_TRUE(filled(q, 20 * kMiB, 9));
    huge_free(q, 20 * kMiB);
    if (block != nullptr) ::munmap(block, kHugePage);
  }
}

TEST(HugeResize, SmallArraysAreFreshOnes) {
  void* p = huge_alloc(1000);
  std::memset(p, 1, 1000);
  void* q = huge_resize(p, 1000, 8 * kMiB);  // small to large
  fill(q, 8 * kMiB, 5);
  void* r = huge_resize(q, 8 * kMiB, 100);  // large to small
  std::memset(r, 2, 100);
  huge_free(r, 100);
}

TEST(HugeReleaseAfter, KeepsTheFirstPagesAndTheArray) {
  void* p = huge_alloc(16 * kMiB);
  fill(p, 16 * kMiB, 4);
  EXPECT_EQ(huge_resident(p, 16 * kMiB), 16 * kMiB);
  huge_release_after(p, 16 * kMiB, 5 * kMiB + 1);  // kept up to the 2 MiB page holding byte 5 MiB: 6 MiB
  EXPECT_EQ(huge_resident(p, 16 * kMiB), 6 * kMiB);
  EXPECT_TRUE(filled(p, 6 * kMiB, 4));
  EXPECT_EQ(static_cast<const unsigned char*>(p)[12 * kMiB], 0) << "given back: reads as fresh memory";
  fill(p, 16 * kMiB, 8);  // still the array's, all of it
  EXPECT_TRUE(filled(p, 16 * kMiB, 8));
  huge_release_after(p, 16 * kMiB, 0);
  EXPECT_EQ(huge_resident(p, 16 * kMiB), 0u);
  huge_free(p, 16 * kMiB);
  // A small array is left alone.
  void* q = huge_alloc(1000);
  std::memset(q, 3, 1000);
  huge_release_after(q, 1000, 0);
  EXPECT_EQ(static_cast<const unsigned char*>(q)[999], 3);
  EXPECT_EQ(huge_resident(q, 1000), 1000u);
  huge_free(q, 1000);
}

TEST(KeptArrays, TakeUsesTheSmallestKeptMappingThatFits) {
  KeptArrays kept;
  EXPECT_EQ(kept.bytes(), 0u);
  void* a = kept.take(10 * kMiB);  // nothing kept: fresh
  void* b = huge_alloc(20 * kMiB);
  fill(a, 10 * kMiB, 11);
  fill(b, 20 * kMiB, 12);
  kept.give(a, 10 * kMiB);
  kept.give(b, 20 * kMiB);
  EXPECT_EQ(kept.bytes(), 30 * kMiB);
  void* c = kept.take(7 * kMiB);  // a's first 8 MiB (2 MiB pages), its pages as they were
  EXPECT_EQ(c, a);
  EXPECT_TRUE(filled(c, 7 * kMiB, 11));
  EXPECT_EQ(kept.bytes(), 22 * kMiB);
  void* d = kept.take(4 * kMiB + 1);  // what is left of a (2 MiB) is too small: b's first 6 MiB
  EXPECT_EQ(d, b);
  EXPECT_EQ(kept.bytes(), 16 * kMiB);
  huge_free(c, 7 * kMiB);
  huge_free(d, 4 * kMiB + 1);
  kept.release();
  EXPECT_EQ(kept.bytes(), 0u);
}

TEST(KeptArrays, TakeMovesTheKeptPagesToTheStartOfALargerArray) {
  KeptArrays kept;
  void* a = huge_alloc(6 * kMiB);
  void* b = huge_alloc(4 * kMiB);
  fill(a, 6 * kMiB, 21);
  fill(b, 4 * kMiB, 22);
  kept.give(b, 4 * kMiB);
  kept.give(a, 6 * kMiB);
  void* c = kept.take(16 * kMiB);  // a's pages, then b's, then fresh ones
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c) % kHugePage, 0u);
  EXPECT_TRUE(filled(c, 6 * kMiB, 21));
  EXPECT_TRUE(filled(static_cast<char*>(c) + 6 * kMiB, 4 * kMiB, 22));
  EXPECT_EQ(static_cast<const unsigned char*>(c)[12 * kMiB], 0) << "fresh";
  EXPECT_EQ(kept.bytes(), 0u);
  fill(c, 16 * kMiB, 23);  // all of it the array's
  EXPECT_TRUE(filled(c, 16 * kMiB, 23));
  huge_free(c, 16 * kMiB);
}

TEST(KeptArrays, TakeMovesPartOfAMappingAndKeepsTheRest) {
  KeptArrays kept;
  void* a = huge_alloc(8 * kMiB);
  void* b = huge_alloc(6 * kMiB);
  fill(a, 8 * kMiB, 31);
  fill(b, 6 * kMiB, 32);
  kept.give(a, 8 * kMiB);
  kept.give(b, 6 * kMiB);
  void* c = kept.take(10 * kMiB);  // none fits: a whole, then b's first 2 MiB
  EXPECT_TRUE(filled(c, 8 * kMiB, 31));
  EXPECT_EQ(static_cast<const unsigned char*>(c)[8 * kMiB], 32);
  EXPECT_EQ(kept.bytes(), 4 * kMiB);
  void* d = kept.take(4 * kMiB);  // the rest of b, in place
  EXPECT_EQ(d, static_cast<char*>(b) + 2 * kMiB);
  EXPECT_EQ(static_cast<const unsigned char*>(d)[0], static_cast<std::uint8_t>(32 + 2 * kMiB / 4096));
  EXPECT_EQ(kept.bytes(), 0u);
  huge_free(c, 10 * kMiB);
  huge_free(d, 4 * kMiB);
}

TEST(KeptArrays, SmallArraysAreNeverKept) {
  KeptArrays kept;
  void* p = kept.take(1000);
  std::memset(p, 1, 1000);
  kept.give(p, 1000);  // freed
  EXPECT_EQ(kept.bytes(), 0u);
  kept.give(nullptr, 8 * kMiB);
  EXPECT_EQ(kept.bytes(), 0u);
}

TEST(KeptArrays, AVectorWithAPoolTakesAndGivesBackItsBuffer) {
  KeptArrays kept;
  const std::uint16_t* first = nullptr;
  {
    BigVector<std::uint16_t> v{HugePageAllocator<std::uint16_t>(&kept)};
    v.resize(3 * kMiB);  // 6 MiB
    std::fill(v.begin(), v.end(), std::uint16_t{7});
    first = v.data();
  }
  EXPECT_EQ(kept.bytes(), 6 * kMiB) << "given back when freed";
  BigVector<std::uint16_t> w(2 * kMiB, HugePageAllocator<std::uint16_t>(&kept));
  EXPECT_EQ(w.data(), first) << "the same pages";
  EXPECT_EQ(w[2 * kMiB - 1], 7) << "not filled: as they were";
  EXPECT_EQ(kept.bytes(), 2 * kMiB);
  // Moved into a vector without a pool, it keeps its own.
  BigVector<std::uint16_t> x;
  x = std::move(w);
  EXPECT_EQ(x.get_allocator().pool, &kept);
  x = BigVector<std::uint16_t>();
  EXPECT_EQ(kept.bytes(), 6 * kMiB);
  kept.release();
  EXPECT_EQ(kept.bytes(), 0u);
}

}  // namespace
}  // namespace damka
