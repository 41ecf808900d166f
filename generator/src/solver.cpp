// The in-memory solver: dependency order of materials and their solution.
#include "damka/solver.hpp"

#include <algorithm>
#include <cassert>
#include <set>
#include <stdexcept>

#include "damka/slots.hpp"
#include "damka/engine.hpp"
#include "damka/value_oracle.hpp"

namespace damka {
Solver::Solver(const Rules& rules, int threads) : rules_(rules), threads_(std::max(1, threads)) {}
Solver::~Solver() = default;

void Solver::add(SolvedTable table) {
  const Material m = table.material;
  tables_[m] = std::make_unique<SolvedTable>(std::move(table));
}

const SolvedTable* Solver::table(const Material& canonical) const {
  auto it = tables_.find(canonical);
  return it == tables_.end() ? nullptr : it->second.get();
}

void Solver::solve(const Material& m) {
  // Every material m can lead to, transitively, solved in build order.
  std::set<Material> need;
  std::vector<Material> stack{m.canonical()};
  while (!stack.empty()) {
    const Material x = stack.back();
    stack.pop_back();
    if (!need.insert(x).second) continue;
    for (const Material& s : successors(x)) stack.push_back(s);
  }
  std::vector<Material> order(need.begin(), need.end());
  std::sort(order.begin(), order.end(), build_before);
  for (const Material& x : order)
    if (!table(x)) solve_one(x);
}

namespace {

// Collects a build's DTW and DTC codes into a SolvedTable.
class TableSink : public ValueSink {
 public:
  TableSink(SolvedTable& t, const PassList& passes) : t_(t), passes_(passes) {}
  Status add(std::uint64_t, std::span<const std::span<const std::uint16_t>> codes) override {
    t_.dtw.insert(t_.dtw.end(), codes[0].begin(), codes[0].end());
    if (passes_.dtc >= 0) t_.dtc.insert(t_.dtc.end(), codes[passes_.dtc].begin(), codes[passes_.dtc].end());
    return {};
  }

 private:
  SolvedTable& t_;
  const PassList& passes_;
};

}  // namespace

SolveStats Solver::solve_one(const Material& canonical) {
  assert(canonical.is_canonical());
  MemorySuccessors succ;
  for (const Material& s : successors(canonical)) {
    const SolvedTable* t = table(s);
    assert(t && "solve_one: a successor material is missing");
    succ.add(s, &t->dtw);
  }
  auto out = std::make_unique<SolvedTable>();
  out->material = canonical;
  BuildOptions opt;
  opt.threads = threads_;
  opt.progress = progress_;
  const PassList passes(opt.metrics);
  TableSink sink(*out, passes);
  BuildStats bs;
  const Status s = build_material(rules_, canonical, succ, sink, opt, bs);
  if (!s.ok()) throw std::runtime_error(s.message());
  SolveStats st;
  st.positions = bs.positions;
  for (const SideCounts& c : bs.side) {
    st.wins += c.wins;
    st.draws += c.draws;
    st.losses += c.losses;
    st.longest_win = std::max(st.longest_win, c.longest_win);
  }
  st.seconds = bs.seconds;
  tables_[canonical] = std::move(out);
  return st;
}

void Solver::drop(const Material& canonical) { tables_.erase(canonical); }

std::optional<Value> Solver::value(const Position& p, Metric metric) const {
  if (p.pieces(opposite(p.side_to_move)) == 0 && p.pieces(p.side_to_move) != 0) return std::nullopt;  // game over
  enum class Found : std::uint8_t { Yes = 0, No = 1 };
  Value v;
  const Found f = oracle_value(rules_, p, metric, [&](const Position& q, Value& out) {
    const TableSlot ts = locate(q);
    const SolvedTable* t = table(ts.material);
    if (!t) return Found::No;
    out = Value::decode(metric == Metric::DTC ? t->dtc[ts.slot] : t->dtw[ts.slot]);
    if (metric == Metric::WDL) out = out.wdl_only();
    return Found::Yes;
  }, v);
  if (f != Found::Yes) return std::nullopt;
  return v;
}

}  // namespace damka
