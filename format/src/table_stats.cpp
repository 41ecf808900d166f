// count_codes: the histogram of a table's codes by side to move.
#include "damka/index.hpp"
#include "damka/table_file.hpp"

namespace damka {

Expected<CodeCounts> count_codes(const TableReader& reader) {
  const TableHeader& h = reader.header();
  const std::uint64_t per_side = MaterialIndex(h.material).size();  // slots of White to move
  CodeCounts counts;
  counts.white_to_move.assign(h.max_code + 1u, 0);
  if (h.sides() == 2) counts.black_to_move.assign(h.max_code + 1u, 0);
  std::vector<std::uint16_t> codes;
  for (std::uint64_t b = 0; b < reader.num_blocks(); ++b) {
    if (Status s = reader.read_block(b, codes); !s.ok()) return s.error();
    const std::uint64_t first = b * h.block_size;
    for (std::uint64_t j = 0; j < codes.size(); ++j)
      (first + j < per_side ? counts.white_to_move : counts.black_to_move)[codes[j]]++;
  }
  return counts;
}

}  // namespace damka
