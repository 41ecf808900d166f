// Values for the statutes: table sources and the kings-only distance.
#include <algorithm>
#include <cassert>

#include "damka/generate.hpp"
#include "damka/index.hpp"
#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "damka/statutes.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"
#include "damka/unmove.hpp"

namespace damka {
namespace {

constexpr std::uint16_t kUnset = 0xFFFF;

// The index of each material, built once (MaterialIndex is not free to build).
const MaterialIndex& index_of(const Material& canonical) {
  thread_local std::map<Material, std::unique_ptr<MaterialIndex>> cache;
  auto& slot = cache[canonical];
  if (!slot) slot = std::make_unique<MaterialIndex>(canonical);
  return *slot;
}

// Positions from which a quiet, legal (no capture available) king move of
// the side not to move in q leads to q.
template <class F>
void for_each_legal_king_unmove(const Rules& rules, const Position& q, F&& f) {
  for_each_king_unmove(rules, q, [&](const Position& p) {
    if (!has_capture(rules, p)) f(p);
  });
}

}  // namespace

ValueSource::~ValueSource() = default;

Expected<Value> ValueSource::value(const Position& p, Metric metric) const {
  if (!p.is_valid()) return Error("invalid position");
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  if (p.pieces(opposite(p.side_to_move)) == 0)
    return Error("the side not to move has no pieces: the game is over, no table holds this position");
  const Material m = material_of(p).canonical();
  auto t = table(m);
  if (!t) return t.error();
  if (!*t) return Error("no table for " + m.name() + " (" + describe() + ")");
  const std::uint64_t s = locate_slot(index_of(m), p);
  const Value v = Value::decode(metric == Metric::DTC ? (*t)->dtc[s] : (*t)->dtw[s]);
  return metric == Metric::WDL ? v.wdl_only() : v;
}

Expected<const std::vector<std::uint16_t>*> ValueSource::kings_only(const Material& canonical) const {
  auto t = table(canonical);
  if (!t) return t.error();
  if (!*t) return Error("no table for " + canonical.name() + " (" + describe() + ")");
  // Without men the only restarts are captures and promotions: DTC itself.
  if (canonical.men() == 0) return &(*t)->dtc;
  auto it = kings_only_.find(canonical);
  if (it == kings_only_.end()) {
    auto codes = compute_kings_only(rules_, **t, *this);
    if (!codes) return codes.error();
    it = kings_only_.emplace(canonical, std::move(*codes)).first;
  }
  return &it->second;
}

Expected<Value> ValueSource::count_value(const Position& p, CountMetric metric) const {
  if (metric == CountMetric::DTW) return value(p, Metric::DTW);
  if (metric == CountMetric::DTC || material_of(p).men() == 0) return value(p, Metric::DTC);
  if (!p.is_valid()) return Error("invalid position");
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  const Material m = material_of(p).canonical();
  auto codes = kings_only(m);
  if (!codes) return codes.error();
  return Value::decode((**codes)[locate_slot(index_of(m), p)]);
}

Expected<const SolvedTable*> SolverValues::table(const Material& canonical) const {
  return solver_.table(canonical);
}

TableDirValues::TableDirValues(const Rules& rules, std::filesystem::path dir)
    : ValueSource(rules), dir_(tables_root(dir, rules)) {}

bool TableDirValues::has_table(const Material& canonical) const {
  if (loaded_.count(canonical)) return true;
  std::error_code ec;
  return std::filesystem::is_regular_file(table_path(dir_, rules(), canonical, Metric::DTW), ec) &&
         std::filesystem::is_regular_file(table_path(dir_, rules(), canonical, Metric::DTC), ec);
}

Expected<const SolvedTable*> TableDirValues::table(const Material& canonical) const {
  auto it = loaded_.find(canonical);
  if (it != loaded_.end()) return it->second.get();
  if (!has_table(canonical)) return static_cast<const SolvedTable*>(nullptr);
  auto t = load_solved_table(rules(), dir_, canonical);
  if (!t) return Error("table " + canonical.name() + " in " + table_dir(dir_, rules()).string() + ": " + t.message());
  auto p = std::make_unique<SolvedTable>(std::move(*t));
  const SolvedTable* raw = p.get();
  loaded_.emplace(canonical, std::move(p));
  return raw;
}

std::string TableDirValues::describe() const { return "tables in " + table_dir(dir_, rules()).string(); }

// Retrograde analysis over the quiet king moves of the material (the moves
// that do not restart the count), distance-ordered with buckets:
//   - a won position becomes a win in 1 if a restarting move keeps the win
//     (leads to a position lost for the opponent), in d + 1 if a king move
//     leads to an in-material position finalised as a loss in d;
//   - a lost position with no move is a loss in 0; otherwise it becomes a
//     loss when its last king move's successor is finalised (as a win), in
//     1 + the largest of those distances, or 1 if that is larger and it has a
//     restarting move (all its moves lead to wins for the opponent).
// Draws stay draws.  Every won or lost position is finalised, because a win
// (with perfect play) ends the game, which takes a capture or leaves the
// loser without moves.
Expected<std::vector<std::uint16_t>> compute_kings_only(const Rules& rules, const SolvedTable& table,
                                                        const ValueSource& values) {
  const Material m = table.material;
  if (!m.is_canonical()) return Error("compute_kings_only: material " + m.name() + " is not canonical");
  const MaterialIndex& index = index_of(m);
  const std::uint64_t n = table_slots(index);
  if (table.dtw.size() != n) return Error("compute_kings_only: table " + m.name() + " has the wrong size");
  std::vector<std::uint16_t> codes(n, kUnset);
  std::vector<std::uint8_t> pending(n, 0), floor(n, 0), done(n, 0);
  std::vector<std::uint16_t> queued(n, kUnset);
  std::vector<std::vector<std::uint64_t>> buckets;
  auto push = [&](std::size_t d, std::uint64_t s, bool win) {
    if (buckets.size() <= d) buckets.resize(d + 1);
    buckets[d].push_back(s << 1 | (win ? 1 : 0));
  };
  auto wdl_at = [&](std::uint64_t s) { return Value::decode(table.dtw[s]).wdl; };

  MoveList moves;
  for (std::uint64_t s = 0; s < n; ++s) {
    const Wdl wdl = wdl_at(s);
    if (wdl == Wdl::Draw) {
      codes[s] = 0;
      done[s] = 1;
      continue;
    }
    const Position p = position_at(index, s);
    generate_moves(rules, p, moves);
    if (moves.empty()) {
      if (wdl != Wdl::Loss) return Error("table " + m.name() + ": a position without moves is not a loss");
      push(0, s, false);
      continue;
    }
    const Bitboard my_kings = p.kings[idx(p.side_to_move)];
    int king_moves = 0;
    bool keeping_reset = false, any_reset = false;
    for (const Move& mv : moves) {
      if (!mv.is_capture() && (my_kings & bit(mv.from))) {
        ++king_moves;
        continue;
      }
      any_reset = true;
      if (wdl == Wdl::Win && !keeping_reset) {
        auto v = values.value(apply(p, mv), Metric::WDL);
        if (!v) return v.error();
        if (v->wdl == Wdl::Loss) keeping_reset = true;
      }
    }
    if (king_moves > 255) return Error("compute_kings_only: too many king moves");
    if (wdl == Wdl::Win) {
      if (keeping_reset) {
        push(1, s, true);
        queued[s] = 1;
      }
    } else {
      pending[s] = static_cast<std::uint8_t>(king_moves);
      floor[s] = any_reset ? 1 : 0;
      if (king_moves == 0) push(1, s, false);
    }
  }

  for (std::size_t d = 0; d < buckets.size(); ++d) {
    for (std::size_t i = 0; i < buckets[d].size(); ++i) {
      const std::uint64_t e = buckets[d][i];
      const std::uint64_t s = e >> 1;
      const bool win = e & 1;
      if (done[s]) continue;
      done[s] = 1;
      codes[s] = (win ? Value::win(static_cast<int>(d)) : Value::loss(static_cast<int>(d))).encode();
      for_each_legal_king_unmove(rules, position_at(index, s), [&](const Position& p) {
        const std::uint64_t ps = locate_slot(index, p);
        if (done[ps]) return;
        const Wdl wp = wdl_at(ps);
        if (!win) {
          if (wp == Wdl::Win && queued[ps] > d + 1) {
            queued[ps] = static_cast<std::uint16_t>(d + 1);
            push(d + 1, ps, true);
          }
        } else if (wp == Wdl::Loss) {
          assert(pending[ps] > 0);
          if (--pending[ps] == 0) push(std::max<std::size_t>(d + 1, floor[ps]), ps, false);
        }
      });
    }
    std::vector<std::uint64_t>().swap(buckets[d]);
  }
  for (std::uint64_t s = 0; s < n; ++s)
    if (codes[s] == kUnset)
      return Error("table " + m.name() + ": position " + std::to_string(s) +
                   " is won or lost but no sequence of king moves reaches a capture or man move (inconsistent table)");
  return codes;
}

}  // namespace damka
