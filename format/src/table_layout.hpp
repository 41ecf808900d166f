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
inline constexpr std::uint64_t kBlockEntrySize = 16;  // u64 offset, u64 checksum
inline constexpr std::uint64_t kTrailerSize = 16;     // u64 file checksum, end magic

// Bytes of the block table for nb blocks: nb entries and the end offset.
constexpr std::uint64_t block_table_bytes(std::uint64_t nb) { return nb * kBlockEntrySize + 8; }
constexpr std::uint64_t data_start(std::uint64_t nb) { return kTableHeaderSize + block_table_bytes(nb); }

inline void put_le(unsigned char* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline std::uint64_t get_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

using HeaderBytes = std::array<unsigned char, kTableHeaderSize>;

// Serialises h (its computed fields included) with the block table's checksum.
HeaderBytes encode_header(const TableHeader& h, std::uint64_t block_table_checksum);

// Parses a header whose magic is known to match.  On failure returns false
// and says why in `problem` (for example "written by a newer version").
bool decode_header(const HeaderBytes& bytes, TableHeader& h, std::uint64_t& block_table_checksum,
                   std::string& problem);

// Value encodings (ValueEncoding): size of a block of n codes before zstd.
std::uint64_t raw_block_bytes(ValueEncoding e, std::uint64_t n);
void encode_block(ValueEncoding e, std::span<const std::uint16_t> codes, std::vector<unsigned char>& raw);
// False when a code is out of range (above max_code, or padding bits set).
bool decode_block(ValueEncoding e, std::span<const unsigned char> raw, std::uint64_t n, std::uint16_t max_code,
                  std::vector<std::uint16_t>& out);
// Code j of a raw block of n codes (no range check).
std::uint16_t decode_one(ValueEncoding e, std::span<const unsigned char> raw, std::uint64_t n, std::uint64_t j);

}  // namespace damka::table_layout
