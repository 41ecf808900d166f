// The whole-table reference reader (whole_table_values.hpp).
#include "whole_table_values.hpp"

#include "damka/generate.hpp"
#include "damka/index.hpp"
#include "damka/slots.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"
#include "damka/value_oracle.hpp"

namespace statutes_test {

using namespace damka;

namespace {

const MaterialIndex& index_of(const Material& canonical) {
  thread_local std::map<Material, std::unique_ptr<MaterialIndex>> cache;
  auto& slot = cache[canonical];
  if (!slot) slot = std::make_unique<MaterialIndex>(canonical);
  return *slot;
}

}  // namespace

WholeTableValues::WholeTableValues(const Rules& rules, std::filesystem::path dir)
    : ValueSource(rules), dir_(tables_root(dir, rules)) {}

bool WholeTableValues::has_table(const Material& canonical) const {
  std::error_code ec;
  return std::filesystem::is_regular_file(table_path(dir_, rules(), canonical, Metric::DTW), ec) &&
         std::filesystem::is_regular_file(table_path(dir_, rules(), canonical, Metric::DTC), ec);
}

Expected<const SolvedTable*> WholeTableValues::table(const Material& canonical) const {
  std::lock_guard lock(mu_);
  auto it = loaded_.find(canonical);
  if (it != loaded_.end()) return it->second.get();
  if (!has_table(canonical)) return static_cast<const SolvedTable*>(nullptr);
  // Derived entries are resolved from the tables already loaded when they
  // hold everything this one converts into; load those first.
  for (const Material& s : successors(canonical)) {
    auto t = table(s);
    if (!t) return t.error();
  }
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

std::string WholeTableValues::describe() const { return "tables in " + table_dir(dir_, rules()).string(); }

Expected<Value> WholeTableValues::value(const Position& p, Metric metric) const {
  if (!p.is_valid()) return Error("invalid position");
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  if (p.pieces(opposite(p.side_to_move)) == 0)
    return Error("the side not to move has no pieces: the game is over, no table holds this position");
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
  if (oracle_value(rules(), p, metric, stored, v) != Read::Ok) return failure;
  return v;
}

}  // namespace statutes_test
