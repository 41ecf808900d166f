// Private to damka_format: the on-disk layout of table files (FORMAT.md),
// shared by the writer and the reader.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
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
// DTW/DTC blocks' zstd level with the default compression (FORMAT.md 6); the
// writer tunes two of zstd's parameters at this level (table_writer.cpp).
inline constexpr int kDefaultZstdLevel = 7;
// wdlrun: symbols are coded with one Huffman code per context (FORMAT.md
// 3.4).  A symbol's *class* (next_context below, 0..5) says what it was: a
// literal ending in code 0, 1 or 2, or a run of 0, 1 or 2.  Versions 4..6
// have kContexts contexts, the class of the symbol before; version 7 has
// kHistoryContexts, 6 x the class of the symbol two before + that of the
// one before.  The parse (run_symbols) costs symbols by class alone.
inline constexpr int kContexts = 6;
inline constexpr int kHistoryContexts = 36;
inline constexpr std::uint64_t kCodebookSize = 256 * kContexts;  // versions 4..6: one code length per context and symbol
inline constexpr std::uint64_t kMaxCodebookSize = 256 * kHistoryContexts;
constexpr int run_contexts(std::uint16_t format_version) { return format_version >= 7 ? kHistoryContexts : kContexts; }

constexpr std::uint64_t num_groups(std::uint64_t nb) { return (nb + kGroupBlocks - 1) / kGroupBlocks; }
// The index of every file but a version-7 wdlrun file has a fixed layout:
// the codebook (wdlrun), the group table, the block table (FORMAT.md 3.2).
constexpr std::uint64_t codebook_bytes(ValueEncoding e) { return e == ValueEncoding::WdlRun ? kCodebookSize : 0; }
// The most bytes a wdlrun block of n positions can take: ceil(n/4) symbols
// of at most 12 bits.
constexpr std::uint64_t max_run_block_bytes(std::uint64_t n) { return ((n + 3) / 4 * 12 + 7) / 8; }
// Bits of one block-table entry (FORMAT.md 3.2).  wdlrun: a block's field
// (0..2 a constant block of that code, f >= 3 a block of f - 2 bytes), as
// few bits as hold max_run_block_bytes(block_size) + 2 (9 for 1024).  The
// zstd encodings: 32, the offset of the block from its group's first.
constexpr int block_entry_bits(ValueEncoding e, std::uint32_t block_size) {
  if (e != ValueEncoding::WdlRun) return 32;
  int w = 1;
  while ((std::uint64_t{1} << w) <= max_run_block_bytes(block_size) + 2) ++w;
  return w;
}
constexpr std::uint64_t block_table_bytes(ValueEncoding e, std::uint32_t block_size, std::uint64_t nb) {
  return (nb * static_cast<std::uint64_t>(block_entry_bits(e, block_size)) + 7) / 8;
}
// The fixed-layout index: codebook, group table (groups + 1 end offset),
// block table.
constexpr std::uint64_t fixed_index_bytes(ValueEncoding e, std::uint32_t block_size, std::uint64_t nb) {
  return codebook_bytes(e) + num_groups(nb) * kGroupEntrySize + 8 + block_table_bytes(e, block_size, nb);
}
// Whether a file of this version and encoding has the compact index of
// version 7 wdlrun (FORMAT.md 3.2): two zstd frames (the codebook, the
// block table) and the groups' checksums; its size is in the header.
constexpr bool compact_index(std::uint16_t format_version, ValueEncoding e) {
  return format_version >= 7 && e == ValueEncoding::WdlRun;
}
inline constexpr std::uint64_t kCompactIndexHead = 8;  // u32 codebook frame bytes, u32 block-table frame bytes
inline constexpr std::uint64_t kGroupChecksumSize = 8;  // compact index: u64 XXH3 per group
// The least a compact index can take: its head and the group checksums.
constexpr std::uint64_t min_compact_index_bytes(std::uint64_t nb) {
  return kCompactIndexHead + num_groups(nb) * kGroupChecksumSize;
}
// Bytes per block field in a compact index's block table: each byte of the
// fields is a plane of its own (FORMAT.md 3.2): 2 for 1024 positions.
constexpr int compact_field_bytes(std::uint32_t block_size) {
  return (block_entry_bits(ValueEncoding::WdlRun, block_size) + 7) / 8;
}
// Where the blocks start: after the header and the index (h.index_bytes).
inline std::uint64_t data_start(const TableHeader& h) { return kTableHeaderSize + h.index_bytes; }

// Field b of `bits` bits (<= 32) of a little-endian bit array (LSB first),
// and writing one into a zeroed array.
inline std::uint32_t get_bits(const unsigned char* p, std::uint64_t b, int bits) {
  const std::uint64_t at = b * static_cast<std::uint64_t>(bits);
  std::uint64_t v = 0;
  const int nbytes = static_cast<int>(((at & 7) + static_cast<std::uint64_t>(bits) + 7) / 8);
  for (int i = 0; i < nbytes; ++i) v |= std::uint64_t{p[at / 8 + static_cast<std::uint64_t>(i)]} << (8 * i);
  return static_cast<std::uint32_t>((v >> (at & 7)) & ((std::uint64_t{1} << bits) - 1));
}
inline void put_bits(unsigned char* p, std::uint64_t b, int bits, std::uint32_t value) {
  const std::uint64_t at = b * static_cast<std::uint64_t>(bits);
  const std::uint64_t v = std::uint64_t{value} << (at & 7);
  const int nbytes = static_cast<int>(((at & 7) + static_cast<std::uint64_t>(bits) + 7) / 8);
  for (int i = 0; i < nbytes; ++i) p[at / 8 + static_cast<std::uint64_t>(i)] |= static_cast<unsigned char>(v >> (8 * i));
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
// The context of the symbol after symbol s (FORMAT.md 3.4): after a literal
// its last code c3 (0..2), after a run of v 3 + v.  A block's first symbol
// has context 0.
constexpr int next_context(unsigned s) {
  return s < static_cast<unsigned>(kLiteralSymbols) ? static_cast<int>(s / 27)
                                                    : 3 + static_cast<int>((s - kLiteralSymbols) / kRunClasses) % 3;
}
// The context of the symbol after symbol s, written in context `ctx`, with
// `contexts` contexts (run_contexts): kContexts: next_context(s);
// kHistoryContexts: 6 * (ctx % 6) + next_context(s) (ctx % 6 is the class
// of the symbol before s).  A block's first symbol has context 0.
constexpr int code_context(int ctx, unsigned s, int contexts) {
  return contexts == kContexts ? next_context(s) : ctx % kContexts * kContexts + next_context(s);
}
using SymbolCounts = std::array<std::array<std::uint64_t, 256>, kHistoryContexts>;  // the first `contexts` used
using CodeLengths = std::array<std::uint8_t, kMaxCodebookSize>;  // context c's lengths at 256 c

// The symbols of one block of WDL codes (0..2, or kDontCareCode), appended
// to out (run_parse.cpp, FORMAT.md 3.5): the parse of least cost under a
// fixed table of symbol costs per context (symbol_cost), each don't-care
// code taking whatever value that parse gives it, at most the block's
// largest given code.  Deterministic.  Cost: O(n), about 20 ns per code;
// memory 32 bytes per code (thread-local, reused; 64 above 65536 codes).
void run_symbols(std::span<const std::uint16_t> codes, std::vector<unsigned char>& out);
// The parse's cost in bits of symbol s (0..254) in context c (0..5).
int symbol_cost(int context, unsigned symbol);
// The code of a constant wdlrun block (FORMAT.md 3.2): 0..2 when every given
// code of the block is that code (or none is given: 0), else -1.  O(n).
int constant_code(std::span<const std::uint16_t> codes);
// Huffman code lengths (0 = symbol unused, else 1..kMaxCodeLength) for the
// symbol counts; deterministic.
std::array<std::uint8_t, 256> code_lengths(const std::array<std::uint64_t, 256>& counts);
// The codebook: code_lengths of each of the first `contexts` contexts'
// counts (the rest 0).
CodeLengths context_code_lengths(const SymbolCounts& counts, int contexts);

// The canonical Huffman codes of the contexts (FORMAT.md 3.4) from their
// code lengths.
class RunCode {
 public:
  // `lengths`: 256 per context, kContexts or kHistoryContexts contexts
  // (code_context).  False when the size is neither or the lengths of a
  // context are not a valid prefix code (over-subscribed or a length above
  // kMaxCodeLength).  A context whose lengths are all 0 has no symbol: a
  // block that needs one is refused.
  bool init(std::span<const std::uint8_t> lengths);
  int contexts() const { return contexts_; }
  // Appends the bits of one block's `symbols` (LSB-first, each in its
  // context), padded to a byte with zeros.
  void encode(std::span<const unsigned char> symbols, std::vector<unsigned char>& out) const;
  // The bytes encode() would append for `symbols`.
  std::uint64_t encoded_bytes(std::span<const unsigned char> symbols) const;
  // Decodes a block of n codes to 2-bit packed codes (wdl2 layout,
  // (n+3)/4 bytes, written over).  False when the bytes are not exactly
  // the code of n codes (bad symbol, run past n, literal padding non-zero,
  // bytes left over or missing, padding bits set).
  bool decode_packed(std::span<const unsigned char> bytes, std::uint64_t n, unsigned char* packed) const;

 private:
  int contexts_ = kContexts;
  // The next context is history_ * (class of the symbol before) + class
  // of this one: history_ = 0 with kContexts, 6 with kHistoryContexts.
  unsigned history_ = 0;
  std::array<std::array<std::uint16_t, 256>, kHistoryContexts> code_{};  // bit-reversed codes
  std::array<std::array<std::uint8_t, 256>, kHistoryContexts> length_{};
  // Two-level decoding tables, small enough for the L1 cache with 6
  // contexts (6 x 2 KiB for codes of up to kFirstBits bits, the usual ones).
  // first_[context << kFirstBits | next kFirstBits bits]: symbol | length
  // << 8 | class << 12 (next_context), or kLong | i for a longer code: then
  // second_[i * kSecond | the following kMaxCodeLength - kFirstBits bits]
  // is that entry.  0 = no symbol (bad data).
  static constexpr int kFirstBits = 10;
  static constexpr std::uint32_t kSecond = 1u << (kMaxCodeLength - kFirstBits);
  static constexpr std::uint16_t kLong = 0x8000;
  std::vector<std::uint16_t> first_, second_;
};

// A table's index as a reader keeps it (table_index.cpp).
struct ParsedIndex {
  std::vector<std::uint64_t> group_base;      // groups + 1 entries (the last: the end of the data)
  std::vector<std::uint64_t> group_checksum;  // XXH3-64 of each group's bytes
  std::vector<std::uint32_t> block_rel;       // block offsets from their group's base
  std::vector<std::int8_t> block_constant;    // wdlrun: a constant block's code (0..2), else -1
  std::shared_ptr<const RunCode> code;        // wdlrun: the Huffman code
};
// Parses and checks the index of a file (h: its decoded header; `index`:
// the h.index_bytes bytes after the header, their checksum already
// checked).  Returns "" or what is wrong (the index is corrupted).  Cost:
// O(blocks); a compact index also decompresses its two frames.
std::string parse_index(const TableHeader& h, std::span<const unsigned char> index, ParsedIndex& out);
// The compact index of a version-7 wdlrun file (FORMAT.md 3.2) but for the
// groups' checksums that end it (kGroupChecksumSize bytes a group): its
// head and two zstd frames, the codebook (kHistoryContexts x 256 lengths)
// and the block fields (0..2 a constant block, else its bytes + 2).  "" or
// the problem.  Cost: zstd level 19 over 2 bytes a block.
std::string compact_index_head(std::uint32_t block_size, std::span<const std::uint8_t> lengths,
                               std::span<const std::uint32_t> fields, std::vector<unsigned char>& out);

// 2-bit packed codes to 16-bit codes; false if a code 3 occurs.
bool unpack_wdl2(const unsigned char* packed, std::uint64_t n, std::vector<std::uint16_t>& out);

}  // namespace damka::table_layout
