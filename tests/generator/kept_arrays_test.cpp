// huge_resize and KeptArrays (generator/include/damka/huge_pages.hpp): a
// kept array resized keeps its first bytes (its pages, not a copy), whether
// it shrinks, grows in place or has to move; small arrays are fresh ones.
#include <gtest/gtest.h>
#include <sys/mman.h>

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

TEST(KeptArrays, TakeGivesBackWhatWasKeptResized) {
  KeptArrays kept;
  EXPECT_EQ(kept.bytes(), 0u);
  void* a = kept.take(0, 10 * kMiB);  // nothing kept: fresh
  fill(a, 10 * kMiB, 11);
  kept.give(0, a, 10 * kMiB);
  EXPECT_EQ(kept.bytes(), 10 * kMiB);
  void* b = kept.take(0, 4 * kMiB);  // the same pages, the rest given back
  EXPECT_EQ(b, a);
  EXPECT_TRUE(filled(b, 4 * kMiB, 11));
  EXPECT_EQ(kept.bytes(), 0u);
  kept.give(0, b, 4 * kMiB);
  void* c = kept.take(0, 12 * kMiB);  // grown: the kept part still there
  EXPECT_TRUE(filled(c, 4 * kMiB, 11));
  kept.give(1, c, 12 * kMiB);
  void* d = kept.take(2, 6 * kMiB);  // another slot: fresh
  kept.give(2, d, 6 * kMiB);
  EXPECT_EQ(kept.bytes(), 18 * kMiB);
  void* e = kept.take(2, 2 * kMiB);  // small after large: fresh, the kept one freed
  kept.give(2, e, 2 * kMiB);
  EXPECT_EQ(kept.bytes(), 14 * kMiB);
  kept.release();
  EXPECT_EQ(kept.bytes(), 0u);
}

}  // namespace
}  // namespace damka
