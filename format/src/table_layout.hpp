// Private to damka_format: the on-disk layout of table files (FORMAT.md),
// shared by the writer and the reader.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "damka/table_file.hpp"

namespace damka::table_layout {

inline constexpr std::array<unsigned char, 8> kMagic = {0x89, 'D', 'M', 'K', '\r', '\n', 0x1A, '\n'};
inline constexpr std::array<unsigned char, 8> kEndMagic = {'D', 'M', 'K', 'E', 'N', 'D', '\r', '\n'};
inline constexpr std::uint64_t kTrailerSize = 16;     // u64 file checksum, end magic
inline constexpr std::uint32_t kGroupBlocks = 64;     // blocks per checksum group
inline constexpr std::uint64_t kGroupEntrySize = 16;  // u64 base offset, u64 XXH3 of the group's bytes
inline constexpr std::uint64_t kCodebookSize = 256;   // wdlrun: one code length per symbol
// wdlrun blocks of at most this many positions have u16 block entries: a
// block takes at most ceil(n/4) symbols of at most 12 bits (768 bytes for
// 2048 positions), so a group of 64 spans less than 64 KiB (FORMAT.md 3.2).
inline constexpr std::uint32_t kShortEntryMaxBlock = 2048;

constexpr std::uint64_t num_groups(std::uint64_t nb) { return (nb + kGroupBlocks - 1) / kGroupBlocks; }
constexpr std::uint64_t codebook_bytes(ValueEncoding e) { return e == ValueEncoding::WdlRun ? kCodebookSize : 0; }
// Bytes of one block-table entry (the offset of a block from its group's
// base): 2 for wdlrun with blocks of at most kShortEntryMaxBlock positions, else 4.
constexpr int block_entry_bytes(ValueEncoding e, std::uint32_t block_size) {
  return e == ValueEncoding::WdlRun && block_size <= kShortEntryMaxBlock ? 2 : 4;
}
// The index: codebook, group table (groups + 1 end offset), block table.
constexpr std::uint64_t index_bytes(ValueEncoding e, std::uint32_t block_size, std::uint64_t nb) {
  return codebook_bytes(e) + num_groups(nb) * kGroupEntrySize + 8 + nb * block_entry_bytes(e, block_size);
}
constexpr std::uint64_t data_start(ValueEncoding e, std::uint32_t block_size, std::uint64_t nb) {
  return kTableHeaderSize + index_bytes(e, block_size, nb);
}

inline void put_le(unsigned char* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline std::uint64_t get_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

using HeaderBytes = std::array<unsigned char, kTableHeaderSize>;

// Serialises h (its computed fields included) with the index's checksum.
HeaderBytes encode_header(const TableHeader& h, std::uint64_t index_checksum);

// Parses a header whose magic is known to match.  On failure returns false
// and says why in `problem` (for example "written by a newer version").
bool decode_header(const HeaderBytes& bytes, TableHeader& h, std::uint64_t& index_checksum, std::string& problem);

// Don't-care entries (kDontCareCode) of a block replaced in place: each takes
// the value before it in the block (the first ones the block's first other
// value; 0 if the block has none).  This extends runs and never adds a
// value change, whatever the encoding.
void fill_dont_care(std::span<std::uint16_t> codes);

// ---- zstd encodings (wdl2, u16, u16planes): a block before zstd --------
std::uint64_t raw_block_bytes(ValueEncoding e, std::uint64_t n);
void encode_block(ValueEncoding e, std::span<const std::uint16_t> codes, std::vector<unsigned char>& raw);
// False when a code is out of range (above max_code, or padding bits set).
bool decode_block(ValueEncoding e, std::span<const unsigned char> raw, std::uint64_t n, std::uint16_t max_code,
                  std::vector<std::uint16_t>& out);

// ---- wdlrun (run_codec.cpp) ---------------------------------------------
// Symbols: 0..80 a literal pack of 4 codes c0 + 3 c1 + 9 c2 + 27 c3;
// 81 + 58 v + k a run of kRunLength[k] codes v (v = 0..2).  255 is unused.
inline constexpr int kLiteralSymbols = 81;
inline constexpr int kRunClasses = 58;
inline constexpr int kMaxCodeLength = 12;  // Huffman code lengths are 1..12
extern const std::array<std::uint32_t, kRunClasses> kRunLength;

// The symbols of one block of WDL codes (0..2, or kDontCareCode), appended
// to out (run_parse.cpp, FORMAT.md 3.5): the parse of least cost under a
// fixed table of symbol costs, each don't-care code taking whatever value
// that parse gives it, at most the block's largest given code.  Deterministic.  Cost: O(n) with about 50 steps per
// code; memory 5 bytes per code (thread-local, reused).
void run_symbols(std::span<const std::uint16_t> codes, std::vector<unsigned char>& out);
// Huffman code lengths (0 = symbol unused, else 1..kMaxCodeLength) for the
// symbol counts; deterministic.
std::array<std::uint8_t, 256> code_lengths(const std::array<std::uint64_t, 256>& counts);

// A canonical Huffman code (FORMAT.md 3.4) from its code lengths.
class RunCode {
 public:
  // False when the lengths are not a valid prefix code (over-subscribed,
  // length above kMaxCodeLength, or no symbol).
  bool init(std::span<const std::uint8_t, 256> lengths);
  // Appends the bits of `symbols` (LSB-first), padded to a byte with zeros.
  void encode(std::span<const unsigned char> symbols, std::vector<unsigned char>& out) const;
  // Decodes a block of n codes to 2-bit packed codes (wdl2 layout,
  // (n+3)/4 bytes, written over).  False when the bytes are not exactly
  // the code of n codes (bad symbol, run past n, literal padding non-zero,
  // bytes left over or missing, padding bits set).
  bool decode_packed(std::span<const unsigned char> bytes, std::uint64_t n, unsigned char* packed) const;

 private:
  std::array<std::uint16_t, 256> code_{};      // bit-reversed codes
  std::array<std::uint8_t, 256> length_{};
  std::vector<std::uint16_t> table_;           // peek of kMaxCodeLength bits -> symbol | length << 8; 0 = bad
};

// Test and fuzzing aid: recomputes every checksum of a (possibly damaged)
// table file in memory where its fields allow (group sums, index, header,
// trailer).
void repair_checksums(std::vector<unsigned char>& f);

// 2-bit packed codes to 16-bit codes; false if a code 3 occurs.
bool unpack_wdl2(const unsigned char* packed, std::uint64_t n, std::vector<std::uint16_t>& out);

}  // namespace damka::table_layout
