// The value encodings of a block before zstd (ValueEncoding, FORMAT.md).
#include <array>
#include <bit>
#include <cstring>

#include "table_layout.hpp"

namespace damka::table_layout {
namespace {

// The four 2-bit codes of a Wdl2 byte, as four 16-bit codes in one word.
struct Wdl2Table {
  std::array<std::uint64_t, 256> codes{};
  constexpr Wdl2Table() {
    for (int b = 0; b < 256; ++b)
      for (int j = 0; j < 4; ++j) codes[b] |= std::uint64_t((b >> (2 * j)) & 3) << (16 * j);
  }
};
constexpr Wdl2Table kWdl2{};

}  // namespace

std::uint64_t raw_block_bytes(ValueEncoding e, std::uint64_t n) {
  return e == ValueEncoding::Wdl2 ? (n + 3) / 4 : 2 * n;
}

void encode_block(ValueEncoding e, std::span<const std::uint16_t> codes, std::vector<unsigned char>& raw) {
  const std::uint64_t n = codes.size();
  raw.assign(raw_block_bytes(e, n), 0);
  switch (e) {
    case ValueEncoding::Wdl2:
      for (std::uint64_t j = 0; j < n; ++j) raw[j / 4] |= static_cast<unsigned char>((codes[j] & 3) << (2 * (j % 4)));
      break;
    case ValueEncoding::U16:
      for (std::uint64_t j = 0; j < n; ++j) put_le(&raw[2 * j], codes[j], 2);
      break;
    case ValueEncoding::U16Planes:
      for (std::uint64_t j = 0; j < n; ++j) {
        raw[j] = static_cast<unsigned char>(codes[j]);
        raw[n + j] = static_cast<unsigned char>(codes[j] >> 8);
      }
      break;
    case ValueEncoding::WdlRun: break;  // not a zstd encoding (run_codec.cpp)
  }
}

bool decode_block(ValueEncoding e, std::span<const unsigned char> raw, std::uint64_t n, std::uint16_t max_code,
                  std::vector<std::uint16_t>& out) {
  if (raw.size() != raw_block_bytes(e, n)) return false;
  out.resize(n);
  std::uint16_t top = 0;
  switch (e) {
    case ValueEncoding::Wdl2: {
      const std::uint64_t rest = n % 4;
      if (rest != 0 && (raw[n / 4] >> (2 * rest)) != 0) return false;  // padding bits set
      if (!unpack_wdl2(raw.data(), n, out)) return false;               // a code 3
      unsigned seen = 0;  // OR of every byte: which code bits occur
      for (unsigned char byte : raw) seen |= byte;
      top = (seen & 0xAA) ? 2 : (seen & 0x55) ? 1 : 0;
      break;
    }
    case ValueEncoding::U16:
      for (std::uint64_t j = 0; j < n; ++j) {
        out[j] = static_cast<std::uint16_t>(get_le(&raw[2 * j], 2));
        top = out[j] > top ? out[j] : top;
      }
      break;
    case ValueEncoding::U16Planes:
      for (std::uint64_t j = 0; j < n; ++j) {
        out[j] = static_cast<std::uint16_t>(raw[j] | (raw[n + j] << 8));
        top = out[j] > top ? out[j] : top;
      }
      break;
    case ValueEncoding::WdlRun: return false;  // not a zstd encoding
  }
  return top <= max_code;
}

// Eight codes at a time in a 16-byte vector (SSE2 or NEON, through the
// compiler's vector extension): a group without a don't-care code is left
// as it is; in the others each don't-care lane takes the lane 1, then 2,
// then 4 before it (the value before the group where it looks past the
// group's start), so that after the three steps it holds the nearest
// given value before it in the group, and a lane with none takes the value
// before the group.  The plain loop, one compare and a branch per
// code, mispredicted where given and don't-care codes alternate: about 1%
// of a whole build (the DTW and DTC writers fill every block).
void fill_dont_care(std::span<std::uint16_t> codes) {
  std::uint16_t prev = 0;
  for (std::uint16_t c : codes)
    if (c != kDontCareCode) {
      prev = c;
      break;
    }
  using V = std::uint16_t __attribute__((vector_size(16)));
  const std::size_t n = codes.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    V v;
    std::memcpy(&v, codes.data() + i, sizeof v);
    V dc = (V)(v == kDontCareCode);
    std::uint64_t half[2];
    std::memcpy(half, &dc, sizeof half);
    if ((half[0] | half[1]) != 0) {
      const V before = V{} + prev;  // the value before the group, in every lane
      V s = __builtin_shufflevector(v, before, 8, 0, 1, 2, 3, 4, 5, 6);
      v = (s & dc) | (v & ~dc);
      dc = (V)(v == kDontCareCode);
      s = __builtin_shufflevector(v, before, 8, 9, 0, 1, 2, 3, 4, 5);
      v = (s & dc) | (v & ~dc);
      dc = (V)(v == kDontCareCode);
      s = __builtin_shufflevector(v, before, 8, 9, 10, 11, 0, 1, 2, 3);
      v = (s & dc) | (v & ~dc);
      dc = (V)(v == kDontCareCode);  // only lanes with no given value before them in the group
      v = (before & dc) | (v & ~dc);
      std::memcpy(codes.data() + i, &v, sizeof v);
    }
    prev = v[7];
  }
  for (; i < n; ++i) {
    if (codes[i] == kDontCareCode) codes[i] = prev;
    prev = codes[i];
  }
}

bool unpack_wdl2(const unsigned char* packed, std::uint64_t n, std::vector<std::uint16_t>& out) {
  out.resize(n);
  const std::uint64_t full = n / 4;
  unsigned both = 0;  // OR of byte & (byte >> 1): bit 2j set where a code 3 occurs
  for (std::uint64_t i = 0; i < full; ++i) {
    both |= packed[i] & (packed[i] >> 1);
    const std::uint64_t w = kWdl2.codes[packed[i]];
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&out[4 * i], &w, 8);
    } else {
      for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint16_t>(w >> (16 * j));
    }
  }
  for (std::uint64_t j = 4 * full; j < n; ++j) {
    out[j] = (packed[full] >> (2 * (j % 4))) & 3;
    if (out[j] == 3) return false;
  }
  return (both & 0x55u) == 0;
}

}  // namespace damka::table_layout
