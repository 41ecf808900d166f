// PackedBlock (private to damka_probe): every kind and length round-trips.
#include <gtest/gtest.h>

#include <random>

#include "../probe/src/block_cache.hpp"

namespace damka::probe_detail {
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

}  // namespace
}  // namespace damka::probe_detail
