// The wdlrun writer's parse (FORMAT.md 3.5): a block's codes, don't-care
// entries included, cut into the symbols of least total cost under a fixed
// table of symbol costs, by dynamic programming from the block's end.  A
// don't-care entry matches any value, so the parse also chooses the values
// that cost least.
#include <algorithm>
#include <cstring>
#include <limits>

#include "table_layout.hpp"

namespace damka::table_layout {
namespace {

// Bits per symbol: the lengths of a Huffman code of the symbol counts of
// parses of Russian 4..6-piece tables (each table weighing the same; 4096
// positions per block).  Only a model: the file's own code is built from its
// own counts afterwards, and any cost table gives a valid parse.
constexpr std::array<std::uint8_t, 255> kSymbolCost = {
    14, 3,  4,  5,  6,  12, 6,  12, 6,  5,  9,  12, 8,  6,  13, 12, 13, 13, 6,  12, 8,  12, 13, 13, 6,  13, 6,
    5,  7,  12, 8,  8,  13, 12, 13, 13, 7,  7,  13, 4,  14, 13, 13, 13, 12, 12, 13, 13, 13, 13, 13, 13, 11, 11,
    6,  12, 7,  12, 13, 12, 8,  13, 6,  12, 13, 12, 13, 13, 13, 13, 13, 11, 7,  13, 6,  13, 13, 11, 5,  9,  14,
    8,  7,  7,  7,  8,  8,  8,  8,  9,  8,  8,  8,  8,  8,  9,  9,  6,  6,  7,  7,  6,  6,  6,  6,  7,  7,  8,
    8,  7,  7,  7,  7,  8,  8,  8,  8,  9,  9,  9,  10, 11, 12, 11, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
    14, 14, 14, 14, 9,  8,  9,  10, 9,  10, 9,  10, 9,  10, 10, 9,  10, 11, 10, 11, 8,  7,  10, 9,  9,  8,  10,
    9,  10, 10, 10, 9,  10, 10, 10, 9,  10, 10, 12, 11, 11, 12, 11, 12, 12, 12, 10, 14, 14, 14, 14, 14, 14, 14,
    14, 14, 14, 14, 14, 14, 14, 14, 9,  8,  8,  8,  10, 9,  9,  9,  10, 10, 9,  10, 9,  10, 11, 11, 8,  7,  9,
    9,  9,  8,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  10, 11, 11, 11, 12, 12, 13, 13, 13, 13, 14, 14, 14,
    14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14,
};

// For 4 codes, each 0..2 or 3 (don't care), as 2-bit fields (low first),
// and the largest value a don't-care code may take (`top`, 0..2): the
// cheapest literal symbol that matches them, and its cost.
struct LiteralChoice {
  std::array<std::array<std::uint8_t, 256>, 3> symbol{};
  std::array<std::array<std::uint8_t, 256>, 3> cost{};
  // Each symbol matches 16 keys (each of its 4 codes given, or don't care
  // where the code is <= top): 3 x 81 x 16 steps, within every compiler's
  // constexpr limit.  Ties go to the lower symbol.
  constexpr LiteralChoice() {
    for (auto& row : cost) row.fill(255);
    for (int top = 0; top < 3; ++top)
      for (int s = 0; s < kLiteralSymbols; ++s) {
        int digit[4] = {};
        for (int j = 0, v = s; j < 4; ++j, v /= 3) digit[j] = v % 3;
        for (int mask = 0; mask < 16; ++mask) {
          bool ok = true;
          int key = 0;
          for (int j = 0; j < 4; ++j) {
            const bool dont_care = (mask >> j) & 1;
            if (dont_care && digit[j] > top) ok = false;
            key |= (dont_care ? 3 : digit[j]) << (2 * j);
          }
          if (ok && kSymbolCost[s] < cost[top][key]) {
            cost[top][key] = static_cast<std::uint8_t>(kSymbolCost[s]);
            symbol[top][key] = static_cast<std::uint8_t>(s);
          }
        }
      }
  }
};
constexpr LiteralChoice kLiterals{};

constexpr int kTried = 7;  // run classes tried from a position: the longest that fits and the 6 below it

// Reused per thread: cost from each position to the block's end, and the
// symbol that starts the best parse there.
struct ParseScratch {
  std::vector<std::uint32_t> cost;
  std::vector<std::uint8_t> choice;
};

}  // namespace

void run_symbols(std::span<const std::uint16_t> codes, std::vector<unsigned char>& out) {
  const std::size_t n = codes.size();
  thread_local ParseScratch scratch;
  std::vector<std::uint32_t>& f = scratch.cost;
  std::vector<std::uint8_t>& choice = scratch.choice;
  f.resize(n + 1);  // every entry is set before it is read
  f[n] = 0;
  choice.resize(n);
  // A don't-care entry takes no value above the block's largest given code,
  // so the file's max code (header) stays that of the given codes.
  unsigned top = 0;
  for (std::uint16_t c : codes)
    if (c != kDontCareCode && c > top) top = c;
  std::array<std::uint32_t, 3> run{};  // codes from i on that are v or don't care
  std::array<int, 3> fit{};            // the largest class k with kRunLength[k] <= run[v] (when run[v] >= 4)
  unsigned key = 0;                    // codes i .. i + 3 as 2-bit fields (3 = don't care, 0 past the end)
  for (std::size_t i = n; i-- > 0;) {
    const unsigned c = codes[i] == kDontCareCode ? 3u : codes[i];
    key = (key << 2 | c) & 0xFF;
    std::uint32_t best = kLiterals.cost[top][key] + f[std::min(i + 4, n)];
    std::uint8_t best_s = kLiterals.symbol[top][key];
    for (unsigned v = 0; v < 3; ++v) {
      if (c == v || (c == 3 && v <= top)) {
        ++run[v];
      } else {
        run[v] = 0;
        fit[v] = 0;
        continue;
      }
      const std::uint32_t r = run[v];
      if (r < kRunLength[0]) continue;
      while (fit[v] + 1 < kRunClasses && kRunLength[fit[v] + 1] <= r) ++fit[v];
      for (int k = std::max(0, fit[v] - kTried + 1); k <= fit[v]; ++k) {
        const int s = kLiteralSymbols + kRunClasses * static_cast<int>(v) + k;
        const std::uint32_t x = kSymbolCost[s] + f[i + kRunLength[k]];
        if (x < best) {
          best = x;
          best_s = static_cast<std::uint8_t>(s);
        }
      }
    }
    f[i] = best;
    choice[i] = best_s;
  }
  for (std::size_t i = 0; i < n;) {
    const unsigned s = choice[i];
    out.push_back(static_cast<unsigned char>(s));
    i += s < kLiteralSymbols ? 4 : kRunLength[(s - kLiteralSymbols) % kRunClasses];
  }
}

}  // namespace damka::table_layout
