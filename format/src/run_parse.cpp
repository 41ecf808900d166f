// The wdlrun writer's parse (FORMAT.md 3.5): a block's codes, don't-care
// entries included, cut into the symbols of least total cost under a fixed
// table of symbol costs per context, by dynamic programming from the
// block's end.  A don't-care entry matches any value, so the parse also
// chooses the values that cost least.
#include <algorithm>
#include <cstring>

#include "table_layout.hpp"

namespace damka::table_layout {
namespace {

// Bits per symbol in each context (FORMAT.md 3.4: the context is set by the
// symbol before): the Huffman code lengths of the symbol counts, per
// context, of the parses of the Russian 2..6-piece tables made with each
// table's own code lengths (15 for a symbol never seen in a context).  Only
// a model: the file's own code is built from its own counts afterwards, and
// any cost table gives a valid parse.
constexpr std::array<std::array<std::uint8_t, 255>, kContexts> kSymbolCost = {{
    {{  // context 0
        13,  2,  5,  4,  7, 13,  6, 13,  8,  5,  9, 13,  8,  7, 15, 13, 15, 15,  6, 13,  9, 13, 15, 15,  9, 15,  9,
         5,  6, 14,  8,  8, 15, 14, 14, 15,  9,  7, 15,  4, 15, 15, 15, 15, 15, 14, 14, 15, 15, 15, 15, 15, 14, 15,
         5, 13,  8, 13, 15, 14, 10, 14,  6, 13, 15, 14, 15, 15, 15, 14, 15, 13, 10, 14,  7, 14, 15, 13,  6, 13, 15,
         9,  7,  7,  6, 11,  7,  7,  7, 10,  7,  8,  7,  8,  8, 10, 12,  6,  5,  6,  6,  6,  6,  7,  7,  8,  9,  9,
         9,  9,  9, 10, 11, 11, 11, 11, 12, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 11,  7,  7,  9,  9,  8,  7,  9,  8, 10, 10,  8, 10, 10,  9, 12,  9,  7, 10,  9,  8,  8, 10,
         9, 11, 11, 12, 11, 12, 12, 11, 13, 12, 12, 12, 13, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 11,  9,  8,  8, 14,  8,  9,  8, 11, 11,  8, 11,  9, 10, 12, 11,  8,  7,  9,
         9,  9,  9, 11, 10, 11, 11, 12, 12, 12, 12, 11, 12, 13, 14, 13, 13, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    }},
    {{  // context 1
        13,  3, 11,  4,  8, 15, 12, 14, 14,  4,  9, 13,  7,  6, 15, 13, 15, 15, 12, 15, 15, 14, 15, 15, 15, 15, 15,
         5,  6, 13,  6,  7, 15, 13, 15, 15,  6,  4, 14,  2, 15, 13, 14, 13, 13, 13, 15, 15, 15, 15, 15, 15, 13, 13,
        14, 14, 14, 14, 15, 15, 15, 15, 13, 13, 15, 13, 15, 14, 15, 15, 15, 12, 15, 15, 13, 15, 15, 14, 12, 14, 15,
        10,  8,  7,  7, 12,  7,  8,  7, 10,  7,  8,  7,  8,  9, 11, 10,  6,  6,  7,  8,  7,  8,  9,  8, 10, 11, 11,
        12, 13, 13, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 10,  6,  7,  8,  8, 10,  6,  7,  8,  8,  8,  6,  8, 10,  7,  9,  6,  5,  8,  8,  7,  8,  8,
         8,  9,  9,  9, 10, 10, 10, 10, 10, 12, 12, 11, 12, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14, 15, 14, 15, 14, 15, 15, 14, 14, 14, 15, 15, 15, 14, 13, 14,
        15, 15, 15, 15, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    }},
    {{  // context 2
        15,  6,  6, 11, 14, 14,  5, 13,  8, 11, 15, 14, 15, 15, 15, 13, 15, 14,  4, 12,  9, 12, 15, 14,  7, 14,  6,
        13, 14, 14, 15, 15, 15, 14, 15, 15, 15, 15, 15, 13, 15, 15, 15, 15, 14, 13, 14, 15, 14, 15, 15, 15, 11, 13,
         4, 11,  7, 11, 14, 13,  7, 13,  5, 11, 14, 13, 14, 15, 13, 13, 13, 10,  7, 12,  3, 12, 13,  9,  2,  9, 15,
         9,  6,  6,  6,  9,  7,  7,  6, 10,  7,  8,  7,  8,  8, 10, 10,  7,  6,  7,  8,  8,  8,  9,  9, 10, 11, 11,
        11, 12, 12, 13, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15,  9,  7,  8,  6, 13,  8,  7,  7, 10, 10,  6,  9,  7,  9, 11, 11,  6,  5,  7,
         7,  6,  8,  8,  8,  8, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    }},
    {{  // context 3
        15,  2,  3,  4,  7, 12,  5, 12,  8,  4,  9, 13,  9, 10, 15, 13, 15, 15,  6, 13,  9, 12, 15, 15,  9, 15, 11,
         5,  6, 14,  8,  9, 14, 13, 14, 15,  9,  8, 15,  4, 15, 15, 14, 15, 15, 13, 14, 15, 15, 15, 15, 15, 14, 15,
         5, 13,  7, 13, 15, 13, 10, 14,  6, 12, 15, 13, 15, 15, 15, 14, 15, 13, 10, 14,  7, 14, 15, 13,  4, 13, 15,
        15, 14, 15, 12, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 11, 12, 12, 10,  9,  7,  6,  7,  9,  6,  8,
         8,  8,  9,  8,  8,  9,  9, 11, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 14, 10, 11, 13, 11, 13, 10, 13, 10, 12, 12,  9, 13, 12, 12, 13,  9,  6, 11,  9,  9,  7, 11,
         9, 10, 10, 10, 10, 10, 10, 11, 11, 12, 12, 13, 13, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 12, 10, 10,  8, 14, 10, 11,  9, 12, 12,  9, 12,  9, 11, 13, 12,  9,  6,  9,
         9,  9,  7, 10, 10, 10, 10, 10, 10, 11, 11, 11, 12, 13, 13, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    }},
    {{  // context 4
        15,  3, 12,  6,  8, 15, 14, 15, 15,  5, 10, 15,  7,  6, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
         6,  7, 14,  6,  6, 15, 15, 15, 15,  6,  4, 15,  1, 15, 12, 15, 12, 14, 14, 15, 15, 14, 13, 15, 15, 13, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 13, 13, 15,
        13, 11, 10, 10, 12, 10, 10,  9, 15,  9, 11, 10, 12,  9, 15, 14,  7,  7,  7,  8,  6,  7,  7,  7,  8,  9,  9,
         8,  9, 10,  9, 10, 11, 11, 11, 12, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 13, 15, 15, 15, 14, 14, 13, 14, 13, 15, 12, 14, 14, 15, 15, 12,  9,  9,  9, 10,  6,  9,
         6, 10,  8,  9,  8,  9,  9, 10,  9,  8,  9, 11, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 14,
        14, 15, 15, 15, 15, 15, 14, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    }},
    {{  // context 5
        15,  4,  5, 11, 12, 13,  5, 13,  7, 11, 15, 14, 14, 14, 14, 13, 15, 14,  5, 13,  9, 12, 13, 14,  6, 14,  5,
        13, 14, 14, 15, 15, 15, 15, 14, 14, 14, 15, 14, 11, 15, 13, 15, 15, 12, 14, 14, 15, 14, 15, 14, 15, 10, 12,
         5, 12,  8, 12, 13, 12,  8, 13,  4, 12, 14, 12, 12, 12, 11, 13, 12,  8,  7, 12,  3, 12, 11,  8,  2,  7, 15,
        11,  8,  7,  7, 11,  8,  8,  7, 13,  8,  9,  9, 11,  8, 13, 12,  6,  6,  7,  7,  6,  7,  7,  7,  8,  8,  8,
         8,  9,  9,  9, 10, 11, 11, 12, 12, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 14, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 13, 15, 15, 15, 14, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 14, 15, 11, 15, 14, 15, 13, 15, 14, 14, 14, 12, 13, 15, 14, 11,  9,  9,
         9,  9,  6,  6,  6,  9,  7,  7,  7,  7,  7,  8,  8,  7,  8, 10, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
        15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    }},
}};

// The dynamic programme keeps, for each position, the best parse from there
// in every context at once: one lane per context, each lane a candidate as
// (cost << 8) | symbol, so the least lane value is the cheapest parse and,
// among equal costs, the lower symbol.  Lanes 6 and 7 are unused.  Blocks
// of up to kNarrowMax positions use 32-bit lanes, larger ones 64-bit lanes.
constexpr int kLanes = 8;
static_assert(kContexts <= kLanes);
using LaneArray = std::array<std::int32_t, kLanes>;
// Lanes of T as vectors of kVectorBytes: 32 where the compiler may use AVX2 (one
// instruction per operation on the 8 lanes of 32 bits), else 16, which every
// x86-64 and ARMv8 CPU has (GCC does 32-byte vectors without AVX one element
// at a time, 4.7x slower).
#if defined(__AVX2__)
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif
template <class T>
struct Lanes {
  typedef T Part __attribute__((vector_size(kVectorBytes)));
  // A Part read straight from a LaneArray (4-byte aligned).
  typedef T LoosePart __attribute__((vector_size(kVectorBytes), aligned(alignof(T)), may_alias));
  static constexpr int kPer = static_cast<int>(kVectorBytes / sizeof(T));
  static constexpr int kParts = kLanes / kPer;
  static_assert(kParts >= 1 && kLanes % kPer == 0);
  // A candidate that does not exist: two of them added stay below the
  // type's limit, and far above any real cost.
  static constexpr T kNever = T{1} << (sizeof(T) * 8 - 3);
  Part part[kParts];

  static Lanes zero() { return Lanes{}; }
  static Lanes load(const LaneArray& a) {
    Lanes v;
    if constexpr (sizeof(T) == sizeof(std::int32_t)) {
      // One vector load per part: a memcpy into v was made (PGO build,
      // AVX2) four 8-byte stores to the stack read back by one 32-byte load,
      // a failed store forward per candidate: 57% of the parse's samples,
      // the parse 17% of `generate -n 5`'s against 4.5% in a portable build.
      const auto* from = reinterpret_cast<const LoosePart*>(a.data());
      for (int i = 0; i < kParts; ++i) v.part[i] = from[i];
    } else {  // kNever stays far above any cost
      for (int c = 0; c < kLanes; ++c) v.part[c / kPer][c % kPer] = a[static_cast<std::size_t>(c)];
    }
    return v;
  }
  T operator[](int c) const { return part[c / kPer][c % kPer]; }
  // The lanes plus x in every lane.
  Lanes plus(T x) const {
    Lanes v;
    for (int i = 0; i < kParts; ++i) v.part[i] = part[i] + x;
    return v;
  }
  // The lane-wise minimum: a select the compiler makes one minimum
  // instruction (pminsd), where a compare and a blend made a chain of two
  // per candidate (the parse's candidates are folded in one after another).
  Lanes min(const Lanes& o) const {
    Lanes v;
    for (int i = 0; i < kParts; ++i) v.part[i] = part[i] < o.part[i] ? part[i] : o.part[i];
    return v;
  }
  // The lanes' costs: each lane with its symbol cleared.
  Lanes costs() const {
    Lanes v;
    for (int i = 0; i < kParts; ++i) v.part[i] = part[i] & ~T{0xFF};
    return v;
  }
};
// A block's cost is below 2^22 << 8 bits up to kNarrowMax positions (at
// most n / 4 symbols of at most 15 bits), below 2^26 << 8 up to the
// largest block (kMaxBlockSize).
constexpr std::size_t kNarrowMax = std::size_t{1} << 16;
static_assert((std::int64_t{kNarrowMax} / 4 * 15 << 8) < Lanes<std::int32_t>::kNever);
static_assert((std::int64_t{kMaxBlockSize} / 4 * 15 << 8) < Lanes<std::int64_t>::kNever);
constexpr std::int32_t kNever = Lanes<std::int32_t>::kNever;

constexpr LaneArray lanes_of_symbol(int s) {
  LaneArray a{};
  for (int c = 0; c < kLanes; ++c) a[c] = c < kContexts ? (kSymbolCost[c][s] << 8 | s) : kNever;
  return a;
}

struct ParseTables {
  // Symbol s in each context.
  std::array<LaneArray, 255> symbol{};
  // For 4 codes, each 0..2 or 3 (don't care), as 2-bit fields (low first),
  // the largest value a don't-care code may take (`top`, 0..2), and the
  // value of the 4th code (`last`, which sets the next context): the
  // cheapest literal symbol that matches them in each context, or kNever.
  std::array<std::array<std::array<LaneArray, 3>, 256>, 3> literal{};
  // Each symbol matches 16 keys (each of its 4 codes given, or don't care
  // where the code is <= top): 3 x 81 x 16 x 8 steps.
  constexpr ParseTables() {
    for (int s = 0; s < 255; ++s) symbol[s] = lanes_of_symbol(s);
    for (auto& by_key : literal)
      for (auto& by_last : by_key)
        for (LaneArray& a : by_last) a.fill(kNever);
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
          if (!ok) continue;
          LaneArray& a = literal[top][key][digit[3]];
          for (int c = 0; c < kLanes; ++c) a[c] = std::min(a[c], symbol[s][c]);
        }
      }
  }
};
constexpr ParseTables kTables{};

constexpr int kTried = 7;  // run classes tried from a position: the longest that fits and the 6 below it

template <class T>
void parse(std::span<const std::uint16_t> codes, std::vector<unsigned char>& out) {
  using V = Lanes<T>;
  const std::size_t n = codes.size();
  // Reused per thread: the best parse from each position, per context
  // (f), and its cost alone, the symbol cleared (g, what the candidates
  // before it add: one broadcast load per candidate, where clearing f's
  // symbol took a load, a clear and a move into a vector register).
  thread_local std::vector<V> f, g;
  f.resize(n + 1);  // every entry is set before it is read
  g.resize(n + 1);
  f[n] = V::zero();
  g[n] = V::zero();
  // A don't-care entry takes no value above the block's largest given code,
  // so the file's max code (header) stays that of the given codes.
  unsigned top = 0;
  for (std::uint16_t c : codes)
    if (c != kDontCareCode && c > top) top = c;
  const auto& literal = kTables.literal[top];
  std::array<std::uint32_t, 3> run{};  // codes from i on that are v or don't care
  std::array<int, 3> fit{};            // the largest class k with kRunLength[k] <= run[v] (when run[v] >= 4)
  unsigned key = 0;                    // codes i .. i + 3 as 2-bit fields (3 = don't care, 0 past the end)
  for (std::size_t i = n; i-- > 0;) {
    const unsigned c = codes[i] == kDontCareCode ? 3u : codes[i];
    key = (key << 2 | c) & 0xFF;
    // A literal pack: its 4th code sets the next context (any value up to
    // top where it is don't care).
    const V& after = g[std::min(i + 4, n)];
    const unsigned last = key >> 6;
    V best;
    if (last != 3) {
      best = V::load(literal[key][last]).plus(after[static_cast<int>(last)]);
    } else {
      best = V::load(literal[key][0]).plus(after[0]);
      for (unsigned v = 1; v <= top; ++v) best = best.min(V::load(literal[key][v]).plus(after[static_cast<int>(v)]));
    }
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
        best = best.min(V::load(kTables.symbol[s]).plus(g[i + kRunLength[k]][3 + static_cast<int>(v)]));
      }
    }
    f[i] = best;
    g[i] = best.costs();
  }
  int ctx = 0;  // a block's first symbol
  for (std::size_t i = 0; i < n;) {
    const auto s = static_cast<unsigned>(f[i][ctx] & 0xFF);
    out.push_back(static_cast<unsigned char>(s));
    i += s < kLiteralSymbols ? 4 : kRunLength[(s - kLiteralSymbols) % kRunClasses];
    ctx = next_context(s);
  }
}

}  // namespace

int symbol_cost(int context, unsigned symbol) {
  return kSymbolCost[static_cast<std::size_t>(context)][symbol];
}

void run_symbols(std::span<const std::uint16_t> codes, std::vector<unsigned char>& out) {
  if (codes.size() <= kNarrowMax)
    parse<std::int32_t>(codes, out);
  else
    parse<std::int64_t>(codes, out);
}

}  // namespace damka::table_layout
