// Values for the statutes: the statute-aware counts (one engine pass per
// clause and material), the in-memory source and the kings-only distance.
#include <algorithm>
#include <cassert>
#include <optional>
#include <span>
#include <vector>

#include <omp.h>

#include "count_store.hpp"
#include "damka/engine.hpp"
#include "damka/index.hpp"
#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "damka/statutes.hpp"
#include "damka/value_oracle.hpp"
#include "material_index.hpp"
#include "plain_wdl_store.hpp"

namespace damka {

ValueSource::ValueSource(const Rules& rules) : rules_(rules), counts_(std::make_unique<MemoryCountStore>()) {}

ValueSource::ValueSource(const Rules& rules, std::unique_ptr<CountStore> counts)
    : rules_(rules), counts_(counts ? std::move(counts) : std::make_unique<MemoryCountStore>()) {}

ValueSource::~ValueSource() = default;

std::uint64_t ValueSource::plain_tables_read() const { return plain_ ? plain_->tables_read() : 0; }

Expected<std::unique_ptr<PlainWdlView>> ValueSource::plain_wdl_view(const Material& canonical) const {
  std::vector<const PlainWdlStore::Table*> held;
  if (plain_wdl_bytes() > 0) {
    if (!plain_) plain_ = std::make_unique<PlainWdlStore>(plain_wdl_bytes());
    std::vector<Material> smaller;
    for (const Material& s : successors(canonical))
      if (s.pieces() < canonical.pieces()) smaller.push_back(s);
    auto h = plain_->hold(*this, smaller);
    if (!h) return h.error();
    held = std::move(*h);
  }
  return std::make_unique<PlainWdlView>(*this, std::move(held));
}

MetricSpec statute_spec(const Clause& clause) {
  // Every clause restarts on captures and promotions (parse_rulebook checks it).
  const auto restarts = static_cast<std::uint8_t>(kExitCapture | kExitPromotion | (clause.restarts & kExitManMove));
  return MetricSpec{"statute", restarts, false, true, std::nullopt, clause.limit};
}

namespace {

// The entries of clause's number (its family), their excepts found.
std::vector<ResolvedClause> family_of(const Rulebook& book, const Clause& clause) {
  std::vector<ResolvedClause> family;
  for (const Clause& e : book.clauses)
    if (e.judgeable && e.number == clause.number) family.push_back(resolve_clause(book, e));
  return family;
}

// The entry of a family that covers p, if any.
const Clause* family_entry(std::span<const ResolvedClause> family, const Position& p) {
  for (const ResolvedClause& e : family)
    if (clause_covers(e, p)) return e.clause;
  return nullptr;
}

// family_entry for positions of the materials listed (canonical; both
// orientations): each entry's coverage found once per material
// (MaterialCoverage), family_entry for any other.  `family` must outlive
// it.  Thread-safe.
class FamilyCoverage {
 public:
  FamilyCoverage(std::span<const ResolvedClause> family, const std::vector<Material>& canonical) : family_(family) {
    for (const Material& c : canonical)
      for (const Material& m : {c, c.flipped()}) {
        if (std::any_of(of_.begin(), of_.end(), [&](const Of& o) { return o.material == m; })) continue;
        Of o{m, {}};
        for (const ResolvedClause& e : family) o.entries.emplace_back(e, m);
        of_.push_back(std::move(o));
      }
  }
  // The entry covering q (of material `m`, as it stands), if any.
  const Clause* entry(const Position& q, const Material& m) const {
    for (const Of& o : of_) {
      if (o.material != m) continue;
      for (std::size_t i = 0; i < o.entries.size(); ++i)
        if (o.entries[i](q)) return family_[i].clause;
      return nullptr;
    }
    return family_entry(family_, q);
  }

 private:
  struct Of {
    Material material;
    std::vector<MaterialCoverage> entries;  // family_'s, in order
  };
  std::span<const ResolvedClause> family_;
  std::vector<Of> of_;
};

CountKey statute_key(const Rulebook& book, const Clause& clause, const Material& m) {
  return {book.name + "\n" + clause.id + "\n" + std::to_string(clause.limit) + "/" + std::to_string(clause.restarts),
          m};
}

}  // namespace

Expected<const StatuteCounts*> ValueSource::statute_table(const Rulebook& book, const Clause& clause,
                                                          const Material& canonical) const {
  if (!clause.judgeable) return Error("clause " + clause.id + " cannot be judged from tables", ErrorCode::InvalidArgument);
  if (const StatuteCounts* c = counts_->find(statute_key(book, clause, canonical))) return c;
  // Kept by an earlier run (TableDirOptions::keep_dir).
  if (auto kept = counts_->recall(statute_key(book, clause, canonical)); !kept || *kept != nullptr) return kept;
  if (!has_table(canonical))
    return Error("no table for " + canonical.name() + " (" + describe() + ")", ErrorCode::NotFound);
  // The balances the exits reach first (not from inside the engine's threads).
  for (const Material& s : successors(canonical)) {
    if (!has_table(s))
      return Error("no table for " + s.name() + " (" + describe() + "), which " + canonical.name() + " converts into",
                   ErrorCode::NotFound);
    for (const Clause& e : book.clauses) {
      if (!e.judgeable || e.number != clause.number || !clause_matches_material(book, e, s)) continue;
      auto sub = statute_table(book, e, s);
      if (!sub) return sub.error();
    }
  }
  return compute_counts(book, clause, canonical);
}

Expected<std::optional<std::string>> ValueSource::kept_result(const Material& canonical,
                                                              const std::string& what) const {
  return counts_->recall_result(canonical, what);
}

Status ValueSource::keep_result(const Material& canonical, const std::string& what, const std::string& json) const {
  return counts_->keep_result(canonical, what, json);
}

Expected<Value> ValueSource::statute_count(const Rulebook& book, const Clause& clause, const Position& p) const {
  if (Status s = probeable(p); !s.ok()) return s.error();
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  const Material m = material_of(p).canonical();
  auto counts = statute_table(book, clause, m);
  if (!counts) return counts.error();
  auto code = (*counts)->code(locate_slot(material_index(m), p));
  if (!code) return code.error();
  return Value::decode(*code);
}

Expected<Value> ValueSource::statute_value(const Rulebook& book, const Clause& clause, const Position& p) const {
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  const Clause* e = family_entry(family_of(book, clause), p);
  if (!e) return value(p, Metric::WDL);
  const Material m = material_of(p).canonical();
  const StatuteCounts* counts = counts_->find(statute_key(book, *e, m));
  if (!counts) {
    auto c = statute_table(book, *e, m);
    if (!c) return c.error();
    counts = *c;
  }
  auto code = counts->code(locate_slot(material_index(m), p));
  if (!code) return code.error();
  return limit_count(Value::decode(*code), e->limit);
}

Expected<std::unique_ptr<SlotSource>> ValueSource::slots(const Material& canonical) const {
  if (!canonical.is_canonical())
    return Error("material " + canonical.name() + " is not canonical", ErrorCode::InvalidArgument);
  if (!has_table(canonical))
    return Error("no table for " + canonical.name() + " (" + describe() + ")", ErrorCode::NotFound);
  // Position by position through value(): the WDL codes are the values.
  struct ValueSlots final : SlotSource {
    const ValueSource& values;
    const MaterialIndex& index;
    ValueSlots(const ValueSource& v, const MaterialIndex& i) : values(v), index(i) {}
    Status read(std::uint64_t first, std::uint64_t n, Reads, Range& r) const override {
      r.first = first;
      r.positions.resize(n);
      r.derived.resize(n);
      r.codes[0].resize(n);
      r.has[0] = true;
      SlotCursor slots(index);
      for (std::uint64_t j = 0; j < n; ++j) {
        r.positions[j] = slots.at(first + j);
        r.derived[j] = is_derived(values.rules(), r.positions[j]) ? 1 : 0;
        auto v = values.value(r.positions[j], Metric::WDL);
        if (!v) return v.error();
        r.codes[0][j] = v->encode();
      }
      return {};
    }
    Expected<Value> value(const Range& r, std::size_t j, Metric metric) const override {
      return values.value(r.positions[j], metric);
    }
  };
  return std::unique_ptr<SlotSource>(std::make_unique<ValueSlots>(*this, material_index(canonical)));
}

// The clause's count as the pass engine's limited count (statute_spec): the
// material's balance solved level by level, exits valued by statute_value,
// the codes streamed in slot order into the count store.  Plain play bounds
// the result: a statute-aware win is a plain win (checked in slot order
// against the plain WDL of the material, read through value()).
Expected<const StatuteCounts*> ValueSource::compute_counts(const Rulebook& book, const Clause& clause,
                                                           const Material& m) const {
  if (!m.is_canonical()) return Error("statute counts: material " + m.name() + " is not canonical");
  const MaterialIndex& index = material_index(m);
  const std::uint64_t n = table_slots(index);
  const CountKey key = statute_key(book, clause, m);
  auto writer = counts_->write(key, n);
  if (!writer) return writer.error();
  // Exits read counts computed before the build; the lookups are read-only.
  // The counts of each entry of the clause's number and material an exit
  // reaches are found once here (statute_table computed them first), so an
  // exit costs a scan of a few targets, not a look-up by name.
  struct Target {
    const Clause* entry;
    Material material;
    const StatuteCounts* counts;
    std::unique_ptr<MaterialIndex> index;
  };
  std::vector<Target> targets;
  for (const Material& s : successors(m))
    for (const Clause& e : book.clauses)
      if (e.judgeable && e.number == clause.number && clause_matches_material(book, e, s))
        if (const StatuteCounts* c = counts_->find(statute_key(book, e, s)))
          targets.push_back(Target{&e, s, c, std::make_unique<MaterialIndex>(s)});
  // The family and its excepts, found once, and their coverage of the
  // materials an exit reaches (m itself by a man's move where that ends the
  // count) found per material: an exit mostly reads an answer.
  const std::vector<ResolvedClause> family = family_of(book, clause);
  std::vector<Material> reached = successors(m);
  reached.push_back(m);
  const FamilyCoverage covers(family, reached);
  // The plain WDL of the materials its captures lead into, held in memory
  // as far as plain_wdl_bytes() allows (plain_wdl_store.hpp).
  auto plain_wdl = plain_wdl_view(m);
  if (!plain_wdl) return plain_wdl.error();
  const PlainWdlView& into = **plain_wdl;
  FunctionSuccessors succ([&](const Position& q) -> Expected<std::uint16_t> {
    if (q.pieces(q.side_to_move) == 0) return Value::loss(0).wdl_only().encode();
    const Material oriented = material_of(q);
    const Clause* e = covers.entry(q, oriented);
    if (!e) {  // plain play (statute_value's answer)
      auto v = into.wdl(q);
      if (!v) return v.error();
      return v->encode();
    }
    const Material mq = oriented.canonical();
    for (const Target& t : targets) {
      if (t.entry != e || t.material != mq) continue;
      auto code = t.counts->code(locate_slot(*t.index, q));
      if (!code) return code.error();
      return limit_count(Value::decode(*code), e->limit).wdl_only().encode();
    }
    auto v = statute_value(book, clause, q);  // a count not found above
    if (!v) return v.error();
    return v->wdl_only().encode();
  });
  auto plain = slots(m);
  if (!plain) return plain.error();
  struct Sink : ValueSink {
    const ValueSource& values;
    const SlotSource& plain;
    const MaterialIndex& index;
    int limit;
    CountWriter& out;
    std::string mismatch;
    Sink(const ValueSource& v, const SlotSource& p, const MaterialIndex& i, int l, CountWriter& w)
        : values(v), plain(p), index(i), limit(l), out(w) {}
    // Every statute-aware win or loss must be one in plain play: the stored
    // WDL entries read in slot order.  A capture position's entry means
    // nothing, and its check is implied: its value is its captures' (every
    // capture leaves the material), valued as plain play or by the counts
    // of other materials, whose wins and losses were checked in turn when
    // they were computed.  A statute-aware win there has a capture into a
    // statute-aware loss, which is a plain loss: a plain win; a loss has
    // every capture into a win, each a plain win: a plain loss.
    // A quiet position whose entry disagrees is valued through the oracle.
    Status add(std::uint64_t first, std::span<const std::span<const std::uint16_t>> c) override {
      constexpr std::uint64_t kPart = std::uint64_t{1} << 15;
      const std::uint64_t n = c[0].size();
      const auto parts = static_cast<std::int64_t>((n + kPart - 1) / kPart);
      std::int64_t bad_part = parts;
      std::optional<Error> failure;  // of the lowest part that failed
      bool inconsistent = false;
#pragma omp parallel
      {
        SlotSource::Range range;
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t k = 0; k < parts; ++k) {
          const std::uint64_t lo = static_cast<std::uint64_t>(k) * kPart, len = std::min(kPart, n - lo);
          std::optional<Error> found;
          bool bad_value = false;
          if (Status s = plain.read(first + lo, len, {.positions = false}, range); !s.ok()) found = s.error();
          for (std::uint64_t i = 0; i < len && !found; ++i) {
            const Wdl sa = limit_count(Value::decode(c[0][lo + i]), limit).wdl;
            if (sa == Wdl::Draw || Value::decode(range.codes[0][i]).wdl == sa) continue;
            const std::uint64_t slot = first + lo + i;
            const Position p = position_at(index, slot);
            if (is_derived(values.rules(), p)) continue;
            auto v = values.value(p, Metric::WDL);
            if (!v) {
              found = v.error();
            } else if (v->wdl != sa) {
              bad_value = true;
              found = Error("table " + index.material().name() + ": slot " + std::to_string(slot) +
                            " is won under the statutes but not in plain play (inconsistent tables)");
            }
          }
          if (found) {
#pragma omp critical(damka_statute_check)
            if (k < bad_part) {  // the first slot's problem, for any thread count
              bad_part = k;
              failure = std::move(found);
              inconsistent = bad_value;
            }
          }
        }
      }
      if (failure && !inconsistent) return *failure;
      if (failure) {
        if (mismatch.empty()) mismatch = failure->message();
        return {};
      }
      return out.add(c[0]);
    }
  } sink(*this, **plain, index, clause.limit, **writer);
  BuildOptions opt;
  opt.metrics = MetricSet{false, false, false};
  opt.limited = statute_spec(clause);
  opt.threads = omp_get_max_threads();
  opt.memory_budget = engine_budget();
  BuildStats stats;
  if (Status s = build_material(rules_, m, succ, sink, opt, stats); !s.ok()) return s.error();
  if (!sink.mismatch.empty()) return Error(sink.mismatch);
  if (Status s = (*writer)->finish(); !s.ok()) return s.error();
  return counts_->find(key);
}

// ------------------------------------------------------------ in memory

SolverValues::SolverValues(const Rules& rules, const TableSource& tables) : ValueSource(rules), tables_(tables) {}

SolverValues::~SolverValues() = default;

Expected<Value> SolverValues::value(const Position& p, Metric metric) const {
  if (Status s = probeable(p); !s.ok()) return s.error();  // one rule with the tables' (probe.hpp)
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  // The value oracle (value_oracle.hpp) over the tables' stored entries.
  enum class Read : std::uint8_t { Ok = 0, Failed = 1 };
  Error failure;
  auto stored = [&](const Position& q, Value& out) {
    const Material m = material_of(q).canonical();
    const SolvedTable* t = tables_.find(m);
    if (!t) {
      failure = Error("no table for " + m.name() + " (" + describe() + ")", ErrorCode::NotFound);
      return Read::Failed;
    }
    const std::uint64_t s = locate_slot(material_index(m), q);
    out = Value::decode(metric == Metric::DTC ? t->dtc[s] : t->dtw[s]);
    if (metric == Metric::WDL) out = out.wdl_only();
    return Read::Ok;
  };
  Value v;
  if (oracle_value(rules(), p, metric, stored, v) != Read::Ok) return failure;
  return v;
}

Expected<const std::vector<std::uint16_t>*> SolverValues::kings_only(const Material& canonical) const {
  const SolvedTable* t = tables_.find(canonical);
  if (!t) return Error("no table for " + canonical.name() + " (" + describe() + ")", ErrorCode::NotFound);
  // Without men the only restarts are captures and promotions: DTC itself.
  if (canonical.men() == 0) return &t->dtc;
  auto it = kings_only_.find(canonical);
  if (it == kings_only_.end()) {
    auto codes = compute_kings_only(rules(), *t, *this);
    if (!codes) return codes.error();
    it = kings_only_.emplace(canonical, std::move(*codes)).first;
  }
  return &it->second;
}

Expected<Value> SolverValues::count_value(const Position& p, CountMetric metric) const {
  if (metric == CountMetric::DTW) return value(p, Metric::DTW);
  if (metric == CountMetric::DTC || material_of(p).men() == 0) return value(p, Metric::DTC);
  if (Status s = probeable(p); !s.ok()) return s.error();
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  const Material m = material_of(p).canonical();
  auto codes = kings_only(m);
  if (!codes) return codes.error();
  return Value::decode((**codes)[locate_slot(material_index(m), p)]);
}

Expected<const std::vector<std::uint16_t>*> SolverValues::statute_counts(const Rulebook& book, const Clause& clause,
                                                                         const Material& canonical) const {
  auto t = statute_table(book, clause, canonical);
  if (!t) return t.error();
  // A SolverValues keeps its counts in memory (the default store).
  const auto* codes = static_cast<const MemoryCountStore&>(count_store()).codes(statute_key(book, clause, canonical));
  if (!codes) return Error("statute counts of " + canonical.name() + " not kept in memory");
  return codes;
}

// The kings-only distance is the pass engine's kings-only metric
// (metric_spec.hpp: restarts on captures, promotions and man moves; the
// winner keeps the win): the engine solves the material's WDL and that count
// together, reading the WDL of the materials it converts into from `values`.
// The WDL it finds must equal the table's.
Expected<std::vector<std::uint16_t>> compute_kings_only(const Rules& rules, const SolvedTable& table,
                                                        const ValueSource& values) {
  const Material m = table.material;
  if (!m.is_canonical()) return Error("compute_kings_only: material " + m.name() + " is not canonical");
  const std::uint64_t n = table_slots(material_index(m));
  if (table.dtw.size() != n) return Error("compute_kings_only: table " + m.name() + " has the wrong size");
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
