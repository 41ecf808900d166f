// The wdlrun writer's parse (FORMAT.md 3.5, format/src/run_parse.cpp): its
// symbols decode to the given codes, and no parse from the same choices
// (literal packs, runs of the 7 longest classes that fit) costs less under
// the cost table of each context, checked by a plain dynamic programme.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "damka/table_file.hpp"
#include "table_layout.hpp"

namespace damka {
namespace {

namespace tl = table_layout;

// Random WDL codes in runs, with about `dont_care` in 8 of them don't care
// and no code above `top`.
std::vector<std::uint16_t> random_block(std::size_t n, unsigned top, unsigned dont_care, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint16_t> codes(n);
  std::uint16_t run = 0;
  for (auto& c : codes) {
    if (rng() % 12 == 0) run = static_cast<std::uint16_t>(rng() % (top + 1));
    c = rng() % 5 == 0 ? static_cast<std::uint16_t>(rng() % (top + 1)) : run;
    if (rng() % 8 < dont_care) c = kDontCareCode;
  }
  return codes;
}

// The least cost of any parse of codes from position 0 in context 0, by
// the rules of FORMAT.md 3.5, without the writer's tables.
std::uint64_t least_cost(const std::vector<std::uint16_t>& codes) {
  const std::size_t n = codes.size();
  unsigned top = 0;
  for (std::uint16_t c : codes)
    if (c != kDontCareCode) top = std::max<unsigned>(top, c);
  auto matches = [&](std::size_t at, unsigned v) {
    return at >= n ? v == 0 : codes[at] == kDontCareCode ? v <= top : codes[at] == v;
  };
  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::array<std::uint64_t, tl::kContexts>> best(n + 1);
  best[n].fill(0);
  std::array<std::size_t, 3> run{};  // codes from i on that match v (within the block)
  for (std::size_t i = n; i-- > 0;) {
    for (unsigned v = 0; v < 3; ++v) run[v] = matches(i, v) ? run[v] + 1 : 0;
    for (int ctx = 0; ctx < tl::kContexts; ++ctx) {
      std::uint64_t b = kNone;
      for (unsigned s = 0; s < tl::kLiteralSymbols; ++s) {
        const unsigned d[4] = {s % 3, s / 3 % 3, s / 9 % 3, s / 27};
        if (!(matches(i, d[0]) && matches(i + 1, d[1]) && matches(i + 2, d[2]) && matches(i + 3, d[3]))) continue;
        b = std::min<std::uint64_t>(b, tl::symbol_cost(ctx, s) + best[std::min(i + 4, n)][d[3]]);
      }
      for (unsigned v = 0; v < 3; ++v) {
        int fit = -1;
        for (int k = 0; k < tl::kRunClasses; ++k)
          if (tl::kRunLength[k] <= run[v]) fit = k;
        for (int k = std::max(0, fit - 6); k <= fit; ++k) {
          const unsigned s = tl::kLiteralSymbols + tl::kRunClasses * v + static_cast<unsigned>(k);
          b = std::min<std::uint64_t>(b, tl::symbol_cost(ctx, s) + best[i + tl::kRunLength[k]][3 + v]);
        }
      }
      best[i][ctx] = b;
    }
  }
  return best[0][0];
}

// The symbols decode to the given codes (don't-care ones to values up to
// the largest given); returns their cost.
std::uint64_t check_symbols(const std::vector<std::uint16_t>& codes, const std::vector<unsigned char>& symbols) {
  unsigned top = 0;
  for (std::uint16_t c : codes)
    if (c != kDontCareCode) top = std::max<unsigned>(top, c);
  std::vector<unsigned> decoded;
  std::uint64_t cost = 0;
  int ctx = 0;
  for (unsigned char s : symbols) {
    EXPECT_LT(s, 255);
    cost += static_cast<std::uint64_t>(tl::symbol_cost(ctx, s));
    if (s < tl::kLiteralSymbols) {
      for (unsigned v = s, j = 0; j < 4; ++j, v /= 3) decoded.push_back(v % 3);
    } else {
      const unsigned k = (s - tl::kLiteralSymbols) % tl::kRunClasses, v = (s - tl::kLiteralSymbols) / tl::kRunClasses;
      decoded.insert(decoded.end(), tl::kRunLength[k], v);
    }
    ctx = tl::next_context(s);
  }
  EXPECT_GE(decoded.size(), codes.size());
  EXPECT_LT(decoded.size(), codes.size() + 4);
  for (std::size_t j = 0; j < decoded.size(); ++j) {
    if (j >= codes.size())
      EXPECT_EQ(decoded[j], 0u) << j;  // a last literal pack's padding
    else if (codes[j] == kDontCareCode)
      EXPECT_LE(decoded[j], top) << j;
    else
      EXPECT_EQ(decoded[j], codes[j]) << j;
  }
  return cost;
}

RC_GTEST_PROP(RunParse, NoParseCostsLess, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 2500);
  const auto top = *rc::gen::inRange<unsigned>(0, 3);
  const auto dont_care = *rc::gen::inRange<unsigned>(0, 9);
  const std::vector<std::uint16_t> codes = random_block(n, top, dont_care, *rc::gen::arbitrary<unsigned>());
  std::vector<unsigned char> symbols;
  tl::run_symbols(codes, symbols);
  RC_ASSERT(check_symbols(codes, symbols) == least_cost(codes));
  RC_ASSERT(!::testing::Test::HasFailure());
}

// Blocks of more than 65536 codes take the parse's 64-bit path.
TEST(RunParse, LargeBlocksTakeTheLeastCostToo) {
  for (unsigned dont_care : {0u, 3u, 7u}) {
    const std::vector<std::uint16_t> codes = random_block(70001, 2, dont_care, 17 + dont_care);
    std::vector<unsigned char> symbols;
    tl::run_symbols(codes, symbols);
    EXPECT_EQ(check_symbols(codes, symbols), least_cost(codes)) << dont_care;
  }
  // All don't care: the parse is of runs of draws, and what it costs.
  const std::vector<std::uint16_t> none(70001, kDontCareCode);
  std::vector<unsigned char> symbols;
  tl::run_symbols(none, symbols);
  EXPECT_EQ(check_symbols(none, symbols), least_cost(none));
}

// A block is constant (FORMAT.md 3.2) when every given code is the same
// WDL code, or none is given (then 0): the writer's vector test against
// the definition, on blocks of runs, all one code, or all but one slot.
RC_GTEST_PROP(RunParse, ConstantBlocksAreThoseOfOneGivenCode, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 5000);
  const auto top = *rc::gen::inRange<unsigned>(0, 3);
  const auto dont_care = *rc::gen::inRange<unsigned>(0, 9);
  std::vector<std::uint16_t> codes = random_block(n, top, dont_care, *rc::gen::arbitrary<unsigned>());
  const auto shape = *rc::gen::inRange(0, 3);
  if (shape > 0) {  // one code (or don't care) everywhere, then maybe one other slot
    const auto fill = *rc::gen::element<std::uint16_t>(0, 1, 2, kDontCareCode);
    std::fill(codes.begin(), codes.end(), fill);
    if (shape == 2) codes[*rc::gen::inRange<std::size_t>(0, n)] = *rc::gen::element<std::uint16_t>(0, 1, 2, kDontCareCode);
  }
  int want = 0;
  bool seen = false;
  for (std::uint16_t c : codes) {
    if (c == kDontCareCode) continue;
    if (!seen) want = c;
    else if (c != want) want = -1;
    seen = true;
    if (want < 0) break;
  }
  RC_ASSERT(tl::constant_code(codes) == want);
}

}  // namespace
}  // namespace damka
