// Test and fuzzing aid (table_repair.hpp): recomputes a table file's
// checksums so that mutations reach the checks behind them.
#include <xxhash.h>

#include "table_layout.hpp"
#include "table_repair.hpp"

namespace damka::table_layout {
namespace {

// The group sums of a compact index (version-7 wdlrun), where the index
// parses; then its checksum.
void repair_compact(std::vector<unsigned char>& f) {
  TableHeader h;  // what parse_index reads, taken from the bytes as they are
  h.format_version = static_cast<std::uint16_t>(get_le(&f[8], 2));
  h.encoding = ValueEncoding::WdlRun;
  h.max_code = static_cast<std::uint16_t>(get_le(&f[30], 2));
  h.block_size = static_cast<std::uint32_t>(get_le(&f[40], 4));
  h.num_blocks = get_le(&f[48], 8);
  h.index_bytes = get_le(&f[80], 8);
  h.file_size = f.size();
  if (h.block_size == 0 || h.block_size > kMaxBlockSize || h.num_blocks > f.size() ||
      h.index_bytes > f.size() - kTableHeaderSize - kTrailerSize)
    return;
  const std::span<unsigned char> index(&f[kTableHeaderSize], h.index_bytes);
  ParsedIndex parsed;
  if (parse_index(h, index, parsed).empty()) {
    const std::uint64_t ng = num_groups(h.num_blocks);
    unsigned char* sums = index.data() + index.size() - ng * kGroupChecksumSize;
    for (std::uint64_t g = 0; g < ng; ++g)
      put_le(sums + g * kGroupChecksumSize,
             XXH3_64bits(f.data() + parsed.group_base[g], parsed.group_base[g + 1] - parsed.group_base[g]), 8);
  }
  put_le(&f[64], XXH3_64bits(index.data(), index.size()), 8);
}

}  // namespace

void repair_checksums(std::vector<unsigned char>& f) {
  if (f.size() < kTableHeaderSize + kTrailerSize) return;
  const std::uint64_t nb = get_le(&f[48], 8);
  const auto enc = static_cast<ValueEncoding>(f[15]);
  const auto bs = static_cast<std::uint32_t>(get_le(&f[40], 4));
  const std::uint64_t fixed = fixed_index_bytes(enc, bs, nb);
  if (compact_index(static_cast<std::uint16_t>(get_le(&f[8], 2)), enc)) {
    repair_compact(f);
  } else if (nb <= f.size() && kTableHeaderSize + fixed + kTrailerSize <= f.size()) {
    const std::uint64_t ng = num_groups(nb), start = kTableHeaderSize + fixed, end = f.size() - kTrailerSize;
    unsigned char* groups = &f[kTableHeaderSize + codebook_bytes(enc)];
    for (std::uint64_t g = 0; g < ng; ++g) {
      const std::uint64_t from = get_le(groups + g * kGroupEntrySize, 8);
      const std::uint64_t to = get_le(groups + (g + 1) * kGroupEntrySize, 8);  // the next base or the end offset
      if (from >= start && from <= to && to <= end) put_le(groups + g * kGroupEntrySize + 8, XXH3_64bits(f.data() + from, to - from), 8);
    }
    put_le(&f[64], XXH3_64bits(&f[kTableHeaderSize], fixed), 8);
  }
  put_le(&f[120], XXH3_64bits(f.data(), 120), 8);
  put_le(&f[f.size() - kTrailerSize], XXH3_64bits(f.data(), f.size() - kTrailerSize), 8);
}

}  // namespace damka::table_layout
