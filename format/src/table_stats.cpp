// count_codes: the histogram of a table's stored codes by side to move.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "damka/index.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/value_oracle.hpp"

namespace damka {

Status read_slots(const TableReader& reader, std::uint64_t first, std::uint64_t n, std::vector<std::uint16_t>& out,
                  std::vector<std::uint16_t>& block) {
  out.clear();
  const std::uint64_t bs = reader.header().block_size;
  for (std::uint64_t b = first / bs; out.size() < n; ++b) {
    if (Status s = reader.read_block(b, block); !s.ok()) return s;
    const std::uint64_t from = b == first / bs ? first - b * bs : 0;
    const std::uint64_t take = std::min<std::uint64_t>(block.size() - from, n - out.size());
    out.insert(out.end(), block.begin() + static_cast<std::ptrdiff_t>(from),
               block.begin() + static_cast<std::ptrdiff_t>(from + take));
  }
  return {};
}

Expected<CodeCounts> count_codes(const TableReader& reader, const TableReader* wdl) {
  const TableHeader& h = reader.header();
  if (h.metric != Metric::WDL) {
    if (wdl == nullptr) {
      if (h.format_version >= 5)
        return Error(reader.path().string() + ": a distance table's draws are read from its WDL table, which was not given");
    } else {
      const TableHeader& w = wdl->header();
      if (w.metric != Metric::WDL || w.material != h.material || w.slots != h.slots || w.variant != h.variant)
        return Error(wdl->path().string() + ": holds the " + w.material.name() + " " +
                     std::string(metric_name(w.metric)) + " table, not the " + h.material.name() +
                     " wdl table that " + reader.path().string() + " reads its draws from",
                     ErrorCode::Corrupt);
    }
  }
  const bool by_wdl = h.metric != Metric::WDL && wdl != nullptr;
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
    std::vector<std::uint16_t> codes, wdl_codes, wdl_block;
    SlotCursor slots(index);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(reader.num_blocks()); ++b) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const std::uint64_t first = static_cast<std::uint64_t>(b) * h.block_size;
      Status s = reader.read_block(static_cast<std::uint64_t>(b), codes);
      if (s.ok() && by_wdl) s = read_slots(*wdl, first, codes.size(), wdl_codes, wdl_block);
      if (!s.ok()) {
#pragma omp critical(damka_count_codes)
        if (!failed.exchange(true)) error = s;
        continue;
      }
      for (std::uint64_t j = 0; j < codes.size(); ++j) {
        const bool white = first + j < per_side;
        if (is_derived(rules, slots.at(first + j))) {
          ++(white ? mine.derived_white_to_move : mine.derived_black_to_move);
          continue;
        }
        std::uint16_t code = codes[j];
        if (!h.stores_slot(first + j)) {  // one-side file: drawn ones from the WDL file, the rest searched
          if (by_wdl && Value::decode(wdl_codes[j]).wdl == Wdl::Draw)
            (white ? mine.white_to_move : mine.black_to_move)[0]++;
          else
            ++(white ? mine.unstored_white_to_move : mine.unstored_black_to_move);
          continue;
        }
        if (by_wdl) {
          Value v;
          if (!distance_value(wdl_codes[j], code, v)) {
#pragma omp critical(damka_count_codes)
            if (!failed.exchange(true))
              error = Error(reader.path().string() + ": slot " + std::to_string(first + j) +
                                " disagrees with the WDL table on who wins",
                            ErrorCode::Corrupt);
            break;
          }
          code = v.encode();
        }
        (white ? mine.white_to_move : mine.black_to_move)[code]++;
      }
    }
#pragma omp critical(damka_count_codes)
    {
      for (std::size_t c = 0; c < counts.white_to_move.size(); ++c) counts.white_to_move[c] += mine.white_to_move[c];
      for (std::size_t c = 0; c < counts.black_to_move.size(); ++c) counts.black_to_move[c] += mine.black_to_move[c];
      counts.derived_white_to_move += mine.derived_white_to_move;
      counts.derived_black_to_move += mine.derived_black_to_move;
      counts.unstored_white_to_move += mine.unstored_white_to_move;
      counts.unstored_black_to_move += mine.unstored_black_to_move;
    }
  }
  if (failed) return error.error();
  return counts;
}

}  // namespace damka
