// Values for the statutes: table sources and the kings-only distance.
#include <algorithm>
#include <cassert>

#include <omp.h>

#include "damka/engine.hpp"
#include "damka/generate.hpp"
#include "damka/index.hpp"
#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "damka/statutes.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"
#include "damka/value_oracle.hpp"

namespace damka {
namespace {


// The index of each material, built once (MaterialIndex is not free to build).
const MaterialIndex& index_of(const Material& canonical) {
  thread_local std::map<Material, std::unique_ptr<MaterialIndex>> cache;
  auto& slot = cache[canonical];
  if (!slot) slot = std::make_unique<MaterialIndex>(canonical);
  return *slot;
}

}  // namespace

ValueSource::~ValueSource() = default;

Expected<Value> ValueSource::value(const Position& p, Metric metric) const {
  if (!p.is_valid()) return Error("invalid position");
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  if (p.pieces(opposite(p.side_to_move)) == 0)
    return Error("the side not to move has no pieces: the game is over, no table holds this position");
  // The value oracle (value_oracle.hpp) over the tables' stored entries.
  enum class Read : std::uint8_t { Ok = 0, Failed = 1 };
  Error failure;
  auto stored = [&](const Position& q, Value& out) {
    const Material m = material_of(q).canonical();
    auto t = table(m);
    if (!t) failure = t.error();
    else if (!*t) failure = Error("no table for " + m.name() + " (" + describe() + ")");
    if (!t || !*t) return Read::Failed;
    const std::uint64_t s = locate_slot(index_of(m), q);
    out = Value::decode(metric == Metric::DTC ? (*t)->dtc[s] : (*t)->dtw[s]);
    if (metric == Metric::WDL) out = out.wdl_only();
    return Read::Ok;
  };
  Value v;
  if (oracle_value(rules_, p, metric, stored, v) != Read::Ok) return failure;
  return v;
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

MetricSpec statute_spec(const Clause& clause) {
  std::uint8_t restarts = kExitCapture | kExitPromotion;
  if (clause.restarts & kRestartManMove) restarts |= kExitManMove;
  return MetricSpec{"statute", restarts, false, true, std::nullopt, clause.limit};
}

namespace {

// The entry of clause's number (its family) that covers p, if any.
const Clause* family_entry(const Rulebook& book, const Clause& clause, const Position& p) {
  for (const Clause& e : book.clauses)
    if (e.judgeable && e.number == clause.number && clause_covers(book, e, p)) return &e;
  return nullptr;
}

std::pair<std::string, Material> statute_key(const Rulebook& book, const Clause& clause, const Material& m) {
  return {book.name + "\n" + clause.id, m};
}

}  // namespace

const std::vector<std::uint16_t>* ValueSource::cached_statute_counts(const Rulebook& book, const Clause& clause,
                                                                     const Material& canonical) const {
  auto it = statute_.find(statute_key(book, clause, canonical));
  return it == statute_.end() ? nullptr : &it->second;
}

Expected<const std::vector<std::uint16_t>*> ValueSource::statute_counts(const Rulebook& book, const Clause& clause,
                                                                        const Material& canonical) const {
  if (!clause.judgeable) return Error("clause " + clause.id + " cannot be judged from tables");
  if (const auto* c = cached_statute_counts(book, clause, canonical)) return c;
  auto t = table(canonical);
  if (!t) return t.error();
  if (!*t) return Error("no table for " + canonical.name() + " (" + describe() + ")");
  // The balances the exits reach first (not from inside the engine's threads).
  for (const Material& s : successors(canonical)) {
    if (!has_table(s)) return Error("no table for " + s.name() + " (" + describe() + "), which " + canonical.name() +
                                    " converts into");
    for (const Clause& e : book.clauses) {
      if (!e.judgeable || e.number != clause.number || !clause_matches_material(book, e, s)) continue;
      auto sub = statute_counts(book, e, s);
      if (!sub) return sub.error();
    }
  }
  auto codes = compute_statute_counts(book, clause, **t, *this);
  if (!codes) return codes.error();
  return &statute_.emplace(statute_key(book, clause, canonical), std::move(*codes)).first->second;
}

Expected<Value> ValueSource::statute_count(const Rulebook& book, const Clause& clause, const Position& p) const {
  if (!p.is_valid()) return Error("invalid position");
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  const Material m = material_of(p).canonical();
  auto codes = statute_counts(book, clause, m);
  if (!codes) return codes.error();
  return Value::decode((**codes)[locate_slot(index_of(m), p)]);
}

Expected<Value> ValueSource::statute_value(const Rulebook& book, const Clause& clause, const Position& p) const {
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  const Clause* e = family_entry(book, clause, p);
  if (!e) return value(p, Metric::WDL);
  const Material m = material_of(p).canonical();
  const std::vector<std::uint16_t>* codes = cached_statute_counts(book, *e, m);
  if (!codes) {
    auto c = statute_counts(book, *e, m);
    if (!c) return c.error();
    codes = *c;
  }
  return limit_count(Value::decode((*codes)[locate_slot(index_of(m), p)]), e->limit);
}

// The clause's count as the pass engine's limited count (statute_spec): the
// material's balance solved level by level, exits valued by statute_value.
// Plain play bounds the result: a statute-aware win is a plain win.
Expected<std::vector<std::uint16_t>> compute_statute_counts(const Rulebook& book, const Clause& clause,
                                                            const SolvedTable& table, const ValueSource& values) {
  const Material m = table.material;
  if (!m.is_canonical()) return Error("compute_statute_counts: material " + m.name() + " is not canonical");
  const std::uint64_t n = table_slots(index_of(m));
  if (table.dtw.size() != n) return Error("compute_statute_counts: table " + m.name() + " has the wrong size");
  for (const Material& s : successors(m)) {
    auto t = values.table(s);
    if (!t) return t.error();
  }
  // Exits read counts computed before the build; the lookups are read-only.
  FunctionSuccessors succ([&](const Position& q) -> Expected<std::uint16_t> {
    auto v = values.statute_value(book, clause, q);
    if (!v) return v.error();
    return v->wdl_only().encode();
  });
  MetricSet metrics{false, false, false};
  struct Sink : ValueSink {
    const SolvedTable& table;
    int limit;
    std::vector<std::uint16_t> codes;
    std::string mismatch;
    Sink(const SolvedTable& t, int l) : table(t), limit(l) {}
    Status add(std::uint64_t first, std::span<const std::span<const std::uint16_t>> c) override {
      for (std::size_t i = 0; i < c[0].size() && mismatch.empty(); ++i) {
        const Wdl sa = limit_count(Value::decode(c[0][i]), limit).wdl;
        if (sa != Wdl::Draw && sa != Value::decode(table.dtw[first + i]).wdl)
          mismatch = "table " + table.material.name() + ": slot " + std::to_string(first + i) +
                     " is won under the statutes but not in plain play (inconsistent tables)";
      }
      codes.insert(codes.end(), c[0].begin(), c[0].end());
      return {};
    }
  } sink(table, clause.limit);
  BuildOptions opt;
  opt.metrics = metrics;
  opt.limited = statute_spec(clause);
  opt.threads = omp_get_max_threads();
  BuildStats stats;
  if (Status s = build_material(values.rules(), m, succ, sink, opt, stats); !s.ok()) return s.error();
  if (!sink.mismatch.empty()) return Error(sink.mismatch);
  return std::move(sink.codes);
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
  // Derived entries are resolved from the tables already loaded when they
  // hold everything this one converts into (the report loads in build order).
  struct Loaded : TableSource {
    const std::map<Material, std::unique_ptr<SolvedTable>>& tables;
    explicit Loaded(const std::map<Material, std::unique_ptr<SolvedTable>>& t) : tables(t) {}
    const SolvedTable* find(const Material& c) const override {
      auto it = tables.find(c);
      return it == tables.end() ? nullptr : it->second.get();
    }
  } loaded(loaded_);
  auto t = load_solved_table(rules(), dir_, canonical, &loaded);
  if (!t) return Error("table " + canonical.name() + " in " + table_dir(dir_, rules()).string() + ": " + t.message());
  auto p = std::make_unique<SolvedTable>(std::move(*t));
  const SolvedTable* raw = p.get();
  loaded_.emplace(canonical, std::move(p));
  return raw;
}

std::string TableDirValues::describe() const { return "tables in " + table_dir(dir_, rules()).string(); }

// The kings-only distance is the pass engine's kings-only metric
// (metric_spec.hpp: restarts on captures, promotions and man moves; the
// winner keeps the win): the engine solves the material's WDL and that count
// together, reading the WDL of the materials it converts into from `values`.
// The WDL it finds must equal the table's.
Expected<std::vector<std::uint16_t>> compute_kings_only(const Rules& rules, const SolvedTable& table,
                                                        const ValueSource& values) {
  const Material m = table.material;
  if (!m.is_canonical()) return Error("compute_kings_only: material " + m.name() + " is not canonical");
  const std::uint64_t n = table_slots(index_of(m));
  if (table.dtw.size() != n) return Error("compute_kings_only: table " + m.name() + " has the wrong size");
  // Load what the exits read before the threads start (lookups are then read-only).
  for (const Material& s : successors_closure(m)) {  // the oracle's search over captures reads these
    auto t = values.table(s);
    if (!t) return t.error();
  }
  FunctionSuccessors succ([&values](const Position& q) -> Expected<std::uint16_t> {
    auto v = values.value(q, Metric::WDL);
    if (!v) return v.error();
    return v->encode();
  });
  MetricSet metrics{false, false, true};
  const PassList passes(metrics);
  struct Sink : ValueSink {
    const SolvedTable& table;
    int ko;
    std::vector<std::uint16_t> codes;
    std::string mismatch;
    Sink(const SolvedTable& t, int k) : table(t), ko(k) {}
    Status add(std::uint64_t first, std::span<const std::span<const std::uint16_t>> c) override {
      for (std::size_t i = 0; i < c[0].size() && mismatch.empty(); ++i)
        if (Value::decode(c[0][i]).wdl != Value::decode(table.dtw[first + i]).wdl)
          mismatch = "table " + table.material.name() + ": slot " + std::to_string(first + i) +
                     " disagrees with a one-ply re-solve (inconsistent tables)";
      codes.insert(codes.end(), c[ko].begin(), c[ko].end());
      return {};
    }
  } sink(table, passes.kings_only);
  BuildOptions opt;
  opt.metrics = metrics;
  opt.threads = omp_get_max_threads();
  BuildStats stats;
  if (Status s = build_material(rules, m, succ, sink, opt, stats); !s.ok()) return s.error();
  if (!sink.mismatch.empty()) return Error(sink.mismatch);
  return std::move(sink.codes);
}

}  // namespace damka
