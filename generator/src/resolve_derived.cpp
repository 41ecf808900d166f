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

namespace {

// The loaded tables of every material `canonical` converts into, or empty
// when one is missing.
struct Loaded {
  Material canonical;
  MaterialIndex index;
  const SolvedTable* table;
};
std::vector<Loaded> loaded_closure(const TableSource* loaded, const Material& canonical) {
  std::vector<Loaded> out;
  if (loaded == nullptr) return out;
  for (const Material& m : successors_closure(canonical)) {
    const SolvedTable* t = loaded->find(m);
    if (t == nullptr || t->dtw.size() != table_slots(m) || t->dtc.size() != t->dtw.size()) return {};
    out.push_back(Loaded{m, MaterialIndex(m), t});
  }
  return out;
}

}  // namespace

SuccessorFiles::SuccessorFiles(const Rules& rules, std::filesystem::path dir, const Material& canonical, Metric metric,
                               Env& env)
    : rules_(rules), dir_(std::move(dir)), canonical_(canonical), metric_(metric), env_(&env) {}

SuccessorFiles::~SuccessorFiles() = default;

Expected<const FileSuccessors*> SuccessorFiles::get(std::string_view purpose) {
  if (files_ || successors(canonical_).empty()) return static_cast<const FileSuccessors*>(files_.get());
  // As many readers as resolve_derived's default team (threads = 0).
  auto source =
      FileSuccessors::open(rules_, dir_, successors(canonical_), metric_, std::uint64_t{16} << 20, omp_get_max_threads(),
                           nullptr, *env_);
  if (!source) return Error(canonical_.name() + ": " + std::string(purpose) + ": " + source.message());
  files_ = std::move(*source);
  return static_cast<const FileSuccessors*>(files_.get());
}

Expected<std::uint64_t> resolve_derived(const Rules& rules, const Material& canonical, Metric metric,
                                        std::vector<std::uint16_t>& codes, SuccessorFiles& successor_files,
                                        const TableSource* loaded, int threads) {
  const MaterialIndex index(canonical);
  if (codes.size() != table_slots(index))
    return Error("resolve_derived: " + canonical.name() + ": " + std::to_string(codes.size()) + " codes for " +
                 std::to_string(table_slots(index)) + " slots");
  // The materials its captures lead to: in memory, or their files (none
  // for one piece each: a capture there leaves a side without pieces, lost
  // in 0 by the oracle).
  const std::vector<Loaded> memory = loaded_closure(loaded, canonical);
  const FileSuccessors* files = nullptr;
  if (memory.empty()) {
    auto source = successor_files.get("cannot resolve its capture positions");
    if (!source) return source.error();
    files = *source;
  }
  const int team = threads > 0 ? threads : omp_get_max_threads();
  std::uint64_t derived = 0;
  std::string error;
  std::atomic<bool> failed{false};
#pragma omp parallel num_threads(team) reduction(+ : derived)
  {
    SlotCursor slots(index);  // this thread's slots, in runs
    std::unique_ptr<SuccessorReader> reader;
    std::size_t last = 0;
    // A stored entry of a loaded successor (the oracle's lookup).
    enum class Read : std::uint8_t { Ok = 0, Missing = 1 };
    auto stored = [&](const Position& q, Value& out) {
      if (memory.empty()) return Read::Missing;  // no successor: the search never asks
      const Material c = material_of(q).canonical();
      if (memory[last].canonical != c) {
        last = memory.size();
        for (std::size_t e = 0; e < memory.size(); ++e)
          if (memory[e].canonical == c) last = e;
        if (last == memory.size()) {
          last = 0;
          return Read::Missing;  // not in the closure: cannot happen
        }
      }
      const Loaded& e = memory[last];
      const std::uint64_t slot = locate_slot(e.index, q);
      out = Value::decode(metric == Metric::DTC ? e.table->dtc[slot] : e.table->dtw[slot]);
      if (metric == Metric::WDL) out = out.wdl_only();
      return Read::Ok;
    };
    try {
      if (files) reader = files->reader();
    } catch (const std::exception& e) {
#pragma omp critical(damka_resolve_derived)
      if (!failed.exchange(true)) error = e.what();
    }
#pragma omp for schedule(dynamic, 4096)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(codes.size()); ++i) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const Position& p = slots.at(static_cast<std::uint64_t>(i));
      if (!is_derived(rules, p)) continue;
      ++derived;
      std::string why;
      try {  // an exception must not leave a parallel region
        // A derived position's search goes to its captures' materials only
        // (never to `canonical` itself).
        if (reader) {
          codes[static_cast<std::size_t>(i)] = reader->code(p);
          why = reader->error();
        } else {
          Value v;
          if (oracle_value(rules, p, metric, stored, v) != Read::Ok)
            why = "a table it converts into is missing";
          codes[static_cast<std::size_t>(i)] = v.encode();
        }
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
