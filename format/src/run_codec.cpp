// The wdlrun value encoding (FORMAT.md 3.4): a block of WDL codes as
// run-length symbols (runs of one code, literal packs of 4 codes), each
// written with a canonical Huffman code shared by the whole file.
#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

#include "table_layout.hpp"

namespace damka::table_layout {

// 4..19, then about 1.22 times the previous one, rounded (FORMAT.md lists them).
constexpr std::array<std::uint32_t, kRunClasses> make_run_lengths() {
  std::array<std::uint32_t, kRunClasses> l{};
  for (int k = 0; k < 16; ++k) l[k] = static_cast<std::uint32_t>(4 + k);
  double x = 20;
  for (int k = 16; k < kRunClasses; ++k) {
    auto v = static_cast<std::uint32_t>(x + 0.5);
    l[k] = v > l[k - 1] ? v : l[k - 1] + 1;
    x *= 1.22;
  }
  return l;
}
const std::array<std::uint32_t, kRunClasses> kRunLength = make_run_lengths();

namespace {

// Literal symbol -> its 4 codes as one wdl2 byte.
struct LiteralTable {
  std::array<std::uint8_t, kLiteralSymbols> bits{};
  constexpr LiteralTable() {
    for (int s = 0; s < kLiteralSymbols; ++s)
      bits[s] = static_cast<std::uint8_t>((s % 3) | ((s / 3 % 3) << 2) | ((s / 9 % 3) << 4) | ((s / 27 % 3) << 6));
  }
};
constexpr LiteralTable kLiteral{};

// Run symbol - 81 -> its code and length (no division on the decoding path).
struct RunInfo {
  std::uint32_t length;
  std::uint32_t value;
};
struct RunTable {
  std::array<RunInfo, 3 * kRunClasses> info{};
  explicit RunTable(const std::array<std::uint32_t, kRunClasses>& lengths) {
    for (int i = 0; i < 3 * kRunClasses; ++i)
      info[i] = {lengths[i % kRunClasses], static_cast<std::uint32_t>(i / kRunClasses)};
  }
};
const RunTable kRuns(kRunLength);

// Huffman code lengths for the counts (no limit); ties broken by node order.
std::array<int, 256> huffman_lengths(const std::array<std::uint64_t, 256>& counts) {
  struct Node {
    std::uint64_t weight;
    int id;  // < 256 a symbol, else an inner node
  };
  std::vector<Node> live;
  std::vector<int> parent(512, -1);
  for (int s = 0; s < 256; ++s)
    if (counts[s] != 0) live.push_back({counts[s], s});
  std::array<int, 256> len{};
  if (live.size() == 1) {
    len[live[0].id] = 1;
    return len;
  }
  int next = 256;
  while (live.size() > 1) {
    std::sort(live.begin(), live.end(), [](const Node& a, const Node& b) {
      return a.weight != b.weight ? a.weight < b.weight : a.id < b.id;
    });
    const Node a = live[0], b = live[1];
    parent[a.id] = parent[b.id] = next;
    live.erase(live.begin(), live.begin() + 2);
    live.push_back({a.weight + b.weight, next++});
  }
  for (int s = 0; s < 256; ++s) {
    if (counts[s] == 0) continue;
    int d = 0;
    for (int x = s; parent[x] >= 0; x = parent[x]) ++d;
    len[s] = d;
  }
  return len;
}

}  // namespace

std::array<std::uint8_t, 256> code_lengths(const std::array<std::uint64_t, 256>& counts) {
  std::array<std::uint64_t, 256> c = counts;
  for (;;) {
    const std::array<int, 256> len = huffman_lengths(c);
    if (*std::max_element(len.begin(), len.end()) <= kMaxCodeLength) {
      std::array<std::uint8_t, 256> out{};
      for (int s = 0; s < 256; ++s) out[s] = static_cast<std::uint8_t>(len[s]);
      return out;
    }
    for (auto& x : c)  // flatten the distribution until the code fits
      if (x != 0) x = x / 2 + 1;
  }
}

CodeLengths context_code_lengths(const SymbolCounts& counts, int contexts) {
  CodeLengths out{};
  for (int c = 0; c < contexts; ++c) {
    const std::array<std::uint8_t, 256> len = code_lengths(counts[static_cast<std::size_t>(c)]);
    std::copy(len.begin(), len.end(), out.begin() + 256 * c);
  }
  return out;
}

int constant_code(std::span<const std::uint16_t> codes) {
  // The smallest given code and the largest plus one (mod 2^16: don't care,
  // 0xFFFF, is then 0 and never the largest, and the smallest only when
  // nothing is given): a minimum and a maximum in vector registers, where
  // a bit per code seen took a variable shift per code (12 % of a 7-piece
  // table's write phase).
  std::uint16_t lo = 0xFFFF, hi1 = 0;
  const std::uint16_t* const data = codes.data();
  const std::size_t n = codes.size();
#pragma omp simd reduction(min : lo) reduction(max : hi1)
  for (std::size_t i = 0; i < n; ++i) {
    lo = std::min(lo, data[i]);
    hi1 = std::max(hi1, static_cast<std::uint16_t>(data[i] + 1u));
  }
  if (hi1 == 0) return 0;  // nothing given
  return lo == hi1 - 1 && lo <= 2 ? lo : -1;
}

bool RunCode::init(std::span<const std::uint8_t> all) {
  if (all.size() != kCodebookSize && all.size() != kMaxCodebookSize) return false;
  contexts_ = static_cast<int>(all.size() / 256);
  history_ = contexts_ == kContexts ? 0 : kContexts;
  first_.assign(static_cast<std::size_t>(contexts_) << kFirstBits, 0);
  second_.clear();
  code_ = {};
  length_ = {};
  for (int c = 0; c < contexts_; ++c) {
    const std::span<const std::uint8_t> lengths = all.subspan(256 * static_cast<std::size_t>(c), 256);
    std::array<int, 256> order;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lengths[a] < lengths[b]; });
    std::uint32_t code = 0;
    int prev = 0;
    std::uint16_t* first = first_.data() + (std::size_t{static_cast<unsigned>(c)} << kFirstBits);
    for (int s : order) {
      const int l = lengths[s];
      if (l == 0) continue;
      if (l > kMaxCodeLength || s == 255) return false;
      code <<= (l - prev);
      prev = l;
      if (code >= (1u << l)) return false;  // over-subscribed
      std::uint32_t rev = 0;
      for (int b = 0; b < l; ++b) rev |= ((code >> b) & 1u) << (l - 1 - b);
      code_[c][s] = static_cast<std::uint16_t>(rev);
      length_[c][s] = static_cast<std::uint8_t>(l);
      const auto entry = static_cast<std::uint16_t>(s | (l << 8) | (next_context(static_cast<unsigned>(s)) << 12));
      if (l <= kFirstBits) {
        for (std::uint32_t hi = 0; hi < (1u << (kFirstBits - l)); ++hi) first[rev | (hi << l)] = entry;
      } else {  // the second level: kSecond entries per first kFirstBits bits
        std::uint16_t& link = first[rev & ((1u << kFirstBits) - 1)];
        if (link != 0 && (link & kLong) == 0) return false;  // a shorter code's bits (not a prefix code)
        if (link == 0) {
          // At most 255 longer prefixes per context: 36 x 255 < kLong.
          link = static_cast<std::uint16_t>(kLong | (second_.size() / kSecond));
          second_.resize(second_.size() + kSecond, 0);
        }
        std::uint16_t* sub = second_.data() + std::size_t{static_cast<unsigned>(link & ~kLong)} * kSecond;
        const std::uint32_t rest = rev >> kFirstBits;
        for (std::uint32_t hi = 0; hi < (1u << (kMaxCodeLength - l)); ++hi) sub[rest | (hi << (l - kFirstBits))] = entry;
      }
      ++code;
    }
  }
  return true;
}

void RunCode::encode(std::span<const unsigned char> symbols, std::vector<unsigned char>& out) const {
  std::uint64_t acc = 0;
  int bits = 0;
  int ctx = 0;
  for (unsigned char s : symbols) {
    acc |= std::uint64_t{code_[ctx][s]} << bits;
    bits += length_[ctx][s];
    ctx = code_context(ctx, s, contexts_);
    while (bits >= 8) {
      out.push_back(static_cast<unsigned char>(acc));
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out.push_back(static_cast<unsigned char>(acc));
}

std::uint64_t RunCode::encoded_bytes(std::span<const unsigned char> symbols) const {
  std::uint64_t bits = 0;
  int ctx = 0;
  for (unsigned char s : symbols) {
    bits += length_[ctx][s];
    ctx = code_context(ctx, s, contexts_);
  }
  return (bits + 7) / 8;
}

bool RunCode::decode_packed(std::span<const unsigned char> bytes, std::uint64_t n, unsigned char* packed) const {
  const std::uint64_t out_bytes = (n + 3) / 4;
  std::memset(packed, 0, out_bytes);
  const unsigned char* p = bytes.data();
  const std::uint64_t nbytes = bytes.size();
  const std::uint64_t total_bits = 8 * nbytes;
  std::uint64_t used = 0;  // bits consumed
  std::uint64_t at = 0;    // codes decoded
  std::uint32_t ctx = 0;   // the context, shifted to index first_
  unsigned last = 0;       // the class of the symbol before (history_ contexts)
  constexpr std::uint32_t kFirstMask = (1u << kFirstBits) - 1;
  // The last (up to) 8 bytes again, followed by zeros: 8-byte loads near the end.
  unsigned char tail[16] = {};
  const std::uint64_t tail_start = nbytes >= 8 ? nbytes - 8 : 0;
  if (nbytes > 0) std::memcpy(tail, p + tail_start, nbytes - tail_start);
  while (at < n) {
    std::uint64_t window;
    const std::uint64_t byte = used >> 3;  // <= nbytes
    std::memcpy(&window, byte + 8 <= nbytes ? p + byte : tail + (byte - tail_start), 8);
    if constexpr (std::endian::native == std::endian::big) window = __builtin_bswap64(window);
    const std::uint64_t peek = window >> (used & 7);
    std::uint16_t e = first_[ctx | (peek & kFirstMask)];
    if (e & kLong) e = second_[std::size_t{static_cast<unsigned>(e & ~kLong)} * kSecond | ((peek >> kFirstBits) & (kSecond - 1))];
    if (e == 0) return false;
    used += (e >> 8) & 15;
    const unsigned cls = (e >> 12) & 7;
    ctx = (history_ * last + cls) << kFirstBits;
    last = cls;
    if (used > total_bits) return false;
    const unsigned s = e & 0xFF;
    if (s < kLiteralSymbols) {
      const unsigned lit = kLiteral.bits[s];
      const std::uint64_t left = n - at;
      if (left < 4 && (lit >> (2 * left)) != 0) return false;  // padding codes must be 0
      const std::uint64_t b = at >> 2;
      const unsigned shift = 2 * (at & 3);
      packed[b] |= static_cast<unsigned char>(lit << shift);
      if (shift != 0 && b + 1 < out_bytes) packed[b + 1] |= static_cast<unsigned char>(lit >> (8 - shift));
      at += 4;
      continue;
    }
    const RunInfo& ri = kRuns.info[s - kLiteralSymbols];
    const unsigned v = ri.value;
    std::uint64_t len = ri.length;
    if (len > n - at) return false;
    if (v == 0) {
      at += len;
      continue;
    }
    for (; (at & 3) != 0 && len > 0; ++at, --len) packed[at >> 2] |= static_cast<unsigned char>(v << (2 * (at & 3)));
    const std::uint64_t whole = len >> 2;
    std::memset(packed + (at >> 2), static_cast<int>(v * 0x55u), whole);
    at += 4 * whole;
    len -= 4 * whole;
    for (; len > 0; ++at, --len) packed[at >> 2] |= static_cast<unsigned char>(v << (2 * (at & 3)));
  }
  if ((used + 7) / 8 != nbytes) return false;                           // bytes left over
  if ((used & 7) != 0 && (p[nbytes - 1] >> (used & 7)) != 0) return false;  // padding bits
  return true;
}

}  // namespace damka::table_layout
