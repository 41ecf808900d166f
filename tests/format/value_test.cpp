// Value codes (value.hpp): every win and loss distance round-trips through
// its code, and the branch-free wdl_only_code gives what decoding,
// dropping the distance and encoding again gives, for every code; a block's
// don't-care codes are filled (fill_dont_care) as the plain definition says.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <vector>

#include "damka/table_file.hpp"
#include "damka/value.hpp"
#include "table_layout.hpp"

namespace damka {
namespace {

TEST(Value, EveryCodeRoundTripsAndDropsItsDistanceWithoutBranches) {
  for (int d = 0; d < 32767; ++d) {
    ASSERT_EQ(Value::decode(Value::win(d).encode()), Value::win(d)) << d;
    ASSERT_EQ(Value::decode(Value::loss(d).encode()), Value::loss(d)) << d;
  }
  for (std::uint32_t code = 0; code <= 2 * 32766 + 2; ++code) {
    const auto c = static_cast<std::uint16_t>(code);
    ASSERT_EQ(Value::wdl_only_code(c), Value::decode(c).wdl_only().encode()) << code;
  }
}

// Each don't-care code takes the value before it; those before the first
// other code take that code (0 in a block of don't-care codes only).
std::vector<std::uint16_t> filled_by_definition(std::vector<std::uint16_t> codes) {
  std::uint16_t first = 0;
  for (std::uint16_t c : codes)
    if (c != kDontCareCode) {
      first = c;
      break;
    }
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (codes[i] == kDontCareCode) codes[i] = i == 0 ? first : codes[i - 1];
  return codes;
}

// Blocks of runs (don't-care runs long and short, so that whole groups of
// the fill's fast paths and mixed ones both occur), any length.
RC_GTEST_PROP(Value, DontCareCodesAreFilledAsDefined, ()) {
  const auto runs = *rc::gen::container<std::vector<std::pair<std::uint16_t, std::uint8_t>>>(
      rc::gen::pair(rc::gen::weightedOneOf<std::uint16_t>({{3, rc::gen::just(kDontCareCode)},
                                                           {2, rc::gen::inRange<std::uint16_t>(0, 400)}}),
                    rc::gen::inRange<std::uint8_t>(1, 80)));
  std::vector<std::uint16_t> codes;
  for (const auto& [code, length] : runs) codes.insert(codes.end(), length, code);
  std::vector<std::uint16_t> got = codes;
  table_layout::fill_dont_care(got);
  RC_ASSERT(got == filled_by_definition(codes));
}

TEST(Value, DontCareFillOfEdgeBlocks) {
  std::vector<std::uint16_t> none(70, kDontCareCode);
  table_layout::fill_dont_care(none);
  EXPECT_EQ(none, std::vector<std::uint16_t>(70, 0));
  std::vector<std::uint16_t> late(70, kDontCareCode);
  late[65] = 7;
  table_layout::fill_dont_care(late);
  EXPECT_EQ(late, std::vector<std::uint16_t>(70, 7));
  std::vector<std::uint16_t> empty;
  table_layout::fill_dont_care(empty);
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace damka
