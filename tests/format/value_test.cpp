// Value codes (value.hpp): every win and loss distance round-trips through
// its code, and the branch-free wdl_only_code gives what decoding,
// dropping the distance and encoding again gives, for every code.
#include <gtest/gtest.h>

#include <cstdint>

#include "damka/value.hpp"

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

}  // namespace
}  // namespace damka
