// Test and fuzzing aid (table_repair.hpp): recomputes a table file's
// checksums so that mutations reach the checks behind them.
#include <xxhash.h>

#include "table_layout.hpp"
#include "table_repair.hpp"

namespace damka::table_layout {

void repair_checksums(std::vector<unsigned char>& f) {
  if (f.size() < kTableHeaderSize + kTrailerSize) return;
  const std::uint64_t nb = get_le(&f[48], 8);
  const auto enc = static_cast<ValueEncoding>(f[15]);
  const auto bs = static_cast<std::uint32_t>(get_le(&f[40], 4));
  if (nb <= f.size() && data_start(enc, bs, nb) + kTrailerSize <= f.size()) {
    const std::uint64_t ng = num_groups(nb), start = data_start(enc, bs, nb), end = f.size() - kTrailerSize;
    unsigned char* groups = &f[kTableHeaderSize + codebook_bytes(enc)];
    for (std::uint64_t g = 0; g < ng; ++g) {
      const std::uint64_t from = get_le(groups + g * kGroupEntrySize, 8);
      const std::uint64_t to = get_le(groups + (g + 1) * kGroupEntrySize, 8);  // the next base or the end offset
      if (from >= start && from <= to && to <= end) put_le(groups + g * kGroupEntrySize + 8, XXH3_64bits(f.data() + from, to - from), 8);
    }
    put_le(&f[64], XXH3_64bits(&f[kTableHeaderSize], index_bytes(enc, bs, nb)), 8);
  }
  put_le(&f[120], XXH3_64bits(f.data(), 120), 8);
  put_le(&f[f.size() - kTrailerSize], XXH3_64bits(f.data(), f.size() - kTrailerSize), 8);
}

}  // namespace damka::table_layout
