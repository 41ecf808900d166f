// count_codes: the histogram of a table's stored codes by side to move.
#include <omp.h>

#include <atomic>
#include <string>

#include "damka/index.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/value_oracle.hpp"

namespace damka {

Expected<CodeCounts> count_codes(const TableReader& reader) {
  const TableHeader& h = reader.header();
  const Rules& rules = rules_of(h.variant);
  const MaterialIndex index(h.material);
  const std::uint64_t per_side = index.size();  // slots of White to move
  CodeCounts counts;
  counts.white_to_move.assign(h.max_code + 1u, 0);
  if (h.sides() == 2) counts.black_to_move.assign(h.max_code + 1u, 0);
  std::atomic<bool> failed{false};
  Status error;
#pragma omp parallel
  {
    CodeCounts mine = counts;
    std::vector<std::uint16_t> codes;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(reader.num_blocks()); ++b) {
      if (failed.load(std::memory_order_relaxed)) continue;
      if (Status s = reader.read_block(static_cast<std::uint64_t>(b), codes); !s.ok()) {
#pragma omp critical(damka_count_codes)
        if (!failed.exchange(true)) error = s;
        continue;
      }
      const std::uint64_t first = static_cast<std::uint64_t>(b) * h.block_size;
      for (std::uint64_t j = 0; j < codes.size(); ++j) {
        const bool white = first + j < per_side;
        if (is_derived(rules, position_at(index, first + j)))
          ++(white ? mine.derived_white_to_move : mine.derived_black_to_move);
        else
          (white ? mine.white_to_move : mine.black_to_move)[codes[j]]++;
      }
    }
#pragma omp critical(damka_count_codes)
    {
      for (std::size_t c = 0; c < counts.white_to_move.size(); ++c) counts.white_to_move[c] += mine.white_to_move[c];
      for (std::size_t c = 0; c < counts.black_to_move.size(); ++c) counts.black_to_move[c] += mine.black_to_move[c];
      counts.derived_white_to_move += mine.derived_white_to_move;
      counts.derived_black_to_move += mine.derived_black_to_move;
    }
  }
  if (failed) return error.error();
  return counts;
}

}  // namespace damka
