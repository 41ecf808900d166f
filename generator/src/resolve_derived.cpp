// resolve_derived: see resolve_derived.hpp.
#include "resolve_derived.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/value_oracle.hpp"
#include "file_successors.hpp"

namespace damka {

Expected<std::uint64_t> resolve_derived(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                                        Metric metric, std::vector<std::uint16_t>& codes, int threads) {
  const MaterialIndex index(canonical);
  if (codes.size() != table_slots(index))
    return Error("resolve_derived: " + canonical.name() + ": " + std::to_string(codes.size()) + " codes for " +
                 std::to_string(table_slots(index)) + " slots");
  // The materials its captures lead to (none for one piece each: a
  // capture there leaves a side without pieces, lost in 0 by the oracle).
  auto source = FileSuccessors::open(rules, dir, successors(canonical), metric, std::uint64_t{16} << 20);
  if (!source) return Error(canonical.name() + ": cannot resolve its capture positions: " + source.message());
  const int team = threads > 0 ? threads : omp_get_max_threads();
  std::uint64_t derived = 0;
  std::string error;
  std::atomic<bool> failed{false};
#pragma omp parallel num_threads(team) reduction(+ : derived)
  {
    std::unique_ptr<SuccessorReader> reader;
    try {
      reader = (*source)->reader();
    } catch (const std::exception& e) {
#pragma omp critical(damka_resolve_derived)
      if (!failed.exchange(true)) error = e.what();
    }
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(codes.size()); ++i) {
      if (failed.load(std::memory_order_relaxed) || !reader) continue;
      const Position p = position_at(index, static_cast<std::uint64_t>(i));
      if (!is_derived(rules, p)) continue;
      ++derived;
      std::string why;
      try {  // an exception must not leave a parallel region
        // A derived position's search goes to its captures' materials only
        // (never to `canonical` itself): the reader resolves it.
        codes[static_cast<std::size_t>(i)] = reader->code(p);
        why = reader->error();
      } catch (const std::exception& e) {
        why = e.what();
      }
      if (!why.empty()) {
#pragma omp critical(damka_resolve_derived)
        if (!failed.exchange(true)) error = why;
      }
    }
  }
  if (failed) return Error(canonical.name() + ": cannot resolve its capture positions: " + error);
  return derived;
}

}  // namespace damka
