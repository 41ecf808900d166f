// One-ply verification of stored tables (see verify.hpp).
#include "damka/verify.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "damka/generate.hpp"
#include "damka/movegen.hpp"
#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"
#include "damka/value_oracle.hpp"
#include "resolve_derived.hpp"

namespace damka {
namespace {

constexpr std::uint16_t kNone = 0xFFFF;

// The tables a material and its successors need, loaded on demand.
// Loading a table resolves its derived entries from the loaded tables of
// what it converts into (TableSource) when they are all here.
class Loaded : public TableSource {
 public:
  Loaded(const Rules& r, const std::filesystem::path& dir) : r_(r), dir_(dir) {}
  const SolvedTable* find(const Material& canonical) const override {
    auto it = tables_.find(canonical);
    return it == tables_.end() ? nullptr : it->second.first.get();
  }
  Expected<const SolvedTable*> get(const Material& canonical) {
    auto it = tables_.find(canonical);
    if (it != tables_.end()) return it->second.first.get();
    // A material built without DTW (--metrics wdl or wdl,dtc): its WDL codes
    // stand in for DTW (right signs, no distances), and for DTC if absent.
    std::error_code ec;
    const bool has_dtw = std::filesystem::exists(table_path(dir_, r_, canonical, Metric::DTW), ec);
    Expected<SolvedTable> t = has_dtw ? load_solved_table(r_, dir_, canonical, this) : load_wdl_table(canonical);
    if (!t) return t.error();
    auto owned = std::make_unique<SolvedTable>(std::move(*t));
    const SolvedTable* p = owned.get();
    tables_.emplace(canonical, std::make_pair(std::move(owned), std::make_unique<MaterialIndex>(canonical)));
    return p;
  }
  const MaterialIndex& index(const Material& canonical) const { return *tables_.at(canonical).second; }
  Expected<SolvedTable> load_wdl_table(const Material& canonical) const {
    SolvedTable t;
    t.material = canonical;
    for (Metric metric : {Metric::WDL, Metric::DTC}) {
      const auto path = table_path(dir_, r_, canonical, metric);
      std::error_code ec;
      if (metric == Metric::DTC && !std::filesystem::exists(path, ec)) {
        t.dtc = t.dtw;
        break;
      }
      auto reader = TableReader::open(path);
      if (!reader) return reader.error();
      if (Status s = check_table_rules((*reader)->header(), r_); !s.ok()) return s.error();
      std::vector<std::uint16_t>& codes = metric == Metric::WDL ? t.dtw : t.dtc;
      std::vector<std::uint16_t> block;
      for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
        if (Status s = (*reader)->read_block(b, block); !s.ok()) return s.error();
        codes.insert(codes.end(), block.begin(), block.end());
      }
      if (codes.size() != table_slots(canonical)) return Error(path.string() + ": wrong number of positions");
      if (metric == Metric::DTC)  // drawn positions from the WDL codes (FORMAT.md 3.5)
        for (std::size_t i = 0; i < codes.size(); ++i) {
          Value v;
          (void)distance_value(t.dtw[i], codes[i], v);
          codes[i] = v.encode();
        }
      // Derived entries: their true values (the file may hold anything).
      if (auto r = resolve_derived(r_, dir_, canonical, metric, codes, this); !r) return r.error();
    }
    return t;
  }
  void drop(const Material& m) { tables_.erase(m); }

 private:
  const Rules& r_;
  std::filesystem::path dir_;
  std::map<Material, std::pair<std::unique_ptr<SolvedTable>, std::unique_ptr<MaterialIndex>>> tables_;
};

}  // namespace

std::string describe(std::uint16_t code) {
  const Value v = Value::decode(code);
  if (v.wdl == Wdl::Draw) return "draw";
  return std::string(v.wdl == Wdl::Win ? "win" : "loss") + " in " + std::to_string(v.plies) + " plies";
}

Expected<std::vector<Material>> tables_in(const Rules& rules, const std::filesystem::path& dir) {
  const auto family = table_dir(tables_root(dir, rules), rules);
  std::error_code ec;
  if (!std::filesystem::is_directory(family, ec)) {
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
      return Error(family.string() + ": " + ec.message(), ErrorCode::Io);
    return Error(family.string() + ": no such directory (generate tables first: damka generate -v " +
                     std::string(rules.name) + " -o " + dir.string() + ")",
                 ErrorCode::NotFound);
  }
  std::set<Material> found;
  for (std::filesystem::directory_iterator it(family, ec), end; !ec && it != end; it.increment(ec)) {
    const std::filesystem::path& e = it->path();
    if (e.extension() != ".dtw" && e.extension() != ".wdl") continue;
    auto m = Material::parse(e.stem().string());
    if (m && m->is_canonical() && m->white() > 0 && m->black() > 0) found.insert(*m);
  }
  if (ec) return Error(family.string() + ": " + ec.message(), ErrorCode::Io);
  int max_pieces = 0;
  for (const Material& m : found) max_pieces = std::max(max_pieces, m.pieces());
  std::vector<Material> order;
  for (const Material& m : build_order(max_pieces))
    if (found.count(m)) order.push_back(m);
  return order;
}

Expected<std::vector<VerifyReport>> verify_tables(const Rules& rules, const std::filesystem::path& dir, int threads,
                                                  const VerifyCallbacks& cb, int max_listed) {
  auto order = tables_in(rules, dir);
  if (!order) return order.error();
  const std::filesystem::path root = tables_root(dir, rules);
  std::map<Material, std::size_t> last_use;
  for (std::size_t i = 0; i < order->size(); ++i) {
    last_use[(*order)[i]] = std::max(last_use[(*order)[i]], i);
    for (const Material& s : successors_closure((*order)[i])) last_use[s] = std::max(last_use[s], i);
  }
  Loaded loaded(rules, root);
  std::vector<VerifyReport> reports;
  for (std::size_t ti = 0; ti < order->size(); ++ti) {
    const Material m = (*order)[ti];
    const auto t0 = std::chrono::steady_clock::now();
    // A table that cannot be verified is reported, and the others go on.
    auto failed = [&](const std::string& why, bool dependency = false) {
      VerifyReport r;
      r.material = m;
      r.positions = table_slots(m);
      r.error = why;
      r.error_in_dependency = dependency;
      if (cb.table_done) cb.table_done(r);
      reports.push_back(r);
      for (const auto& [mat, last] : last_use)
        if (last == ti) loaded.drop(mat);
    };
    // Check the files themselves (header, rules, whole-file checksums).
    std::error_code fec;
    const MetricSet present{std::filesystem::exists(table_path(root, rules, m, Metric::DTW), fec),
                            std::filesystem::exists(table_path(root, rules, m, Metric::DTC), fec), false};
    if (Status s = check_material_files(rules, root, m, true, present); !s.ok()) {
      failed(s.message());
      continue;
    }
    // Everything the oracle's search over captures may read, loaded before
    // the threads start (lookups are then read-only); loading m itself
    // resolves its derived entries from them.
    std::string missing;
    for (const Material& s : successors_closure(m)) {
      auto t = loaded.get(s);
      if (!t && missing.empty()) missing = "needs " + s.name() + ": " + t.message();
    }
    if (!missing.empty()) {
      failed(missing, true);
      continue;
    }
    auto self = loaded.get(m);
    if (!self) {
      failed(self.message());
      continue;
    }
    std::vector<std::uint16_t> wdl;
    {
      std::string bad_wdl;
      auto reader = TableReader::open(table_path(root, rules, m, Metric::WDL));
      if (!reader) bad_wdl = reader.message();
      std::vector<std::uint16_t> block;
      for (std::uint64_t b = 0; reader && bad_wdl.empty() && b < (*reader)->num_blocks(); ++b) {
        if (Status s = (*reader)->read_block(b, block); !s.ok()) bad_wdl = s.message();
        wdl.insert(wdl.end(), block.begin(), block.end());
      }
      if (!bad_wdl.empty()) {
        failed(bad_wdl);
        continue;
      }
    }
    const SolvedTable& t = **self;
    const MaterialIndex& index = loaded.index(m);
    // A stored entry of a loaded table (the oracle's lookup).
    enum class Read : std::uint8_t { Ok = 0 };
    auto stored = [&](Metric metric) {
      return [&, metric](const Position& q, Value& out) {
        const Material c = material_of(q).canonical();
        const SolvedTable* st = c == m ? &t : *loaded.get(c);  // loaded above: no insertion
        const std::uint64_t slot = locate_slot(loaded.index(c), q);
        out = Value::decode(metric == Metric::DTC ? st->dtc[slot] : st->dtw[slot]);
        return Read::Ok;
      };
    };
    // Successor codes of q, through the value oracle.
    auto codes_of = [&](const Position& q, std::uint16_t& dtw, std::uint16_t& dtc) {
      Value v;
      oracle_value(rules, q, Metric::DTW, stored(Metric::DTW), v);
      dtw = v.encode();
      oracle_value(rules, q, Metric::DTC, stored(Metric::DTC), v);
      dtc = v.encode();
    };
    const std::uint64_t n = t.dtw.size();
    std::uint64_t bad = 0;
    int listed = 0;
#pragma omp parallel num_threads(std::max(1, threads)) reduction(+ : bad)
    {
      MoveList moves;
      std::vector<std::uint16_t> sd, sc;  // successors' DTW and DTC codes
#pragma omp for schedule(dynamic, 4096)
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) {
        const Position p = position_at(index, static_cast<std::uint64_t>(i));
        // A capture position's entries are derived, never read: nothing to check.
        if (is_derived(rules, p)) continue;
        generate_moves(rules, p, moves);
        // DTW from one ply.
        int best_loss = -1, worst_win = -1;
        bool draw = false;
        const std::size_t k = moves.size();
        sd.resize(k);
        sc.resize(k);
        for (std::size_t j = 0; j < k; ++j) {
          codes_of(apply(p, moves[j]), sd[j], sc[j]);
          const Value v = Value::decode(sd[j]);
          if (v.wdl == Wdl::Loss) best_loss = best_loss < 0 ? v.plies : std::min<int>(best_loss, v.plies);
          else if (v.wdl == Wdl::Win) worst_win = std::max<int>(worst_win, v.plies);
          else draw = true;
        }
        Value want = best_loss >= 0 ? Value::win(best_loss + 1)
                     : draw         ? Value::draw()
                     : k == 0       ? Value::loss(0)
                                    : Value::loss(worst_win + 1);
        // DTC from one ply, given the WDL.
        Value want_dtc = Value::draw();
        if (want.wdl != Wdl::Draw) {
          int best = -1;
          for (std::size_t j = 0; j < k; ++j) {
            const Value v = Value::decode(sd[j]);
            const bool conv = moves[j].is_capture() || moves[j].promotes;
            const int c = conv ? 1 : Value::decode(sc[j]).plies + 1;
            if (want.wdl == Wdl::Win && v.wdl == Wdl::Loss) best = best < 0 ? c : std::min(best, c);
            if (want.wdl == Wdl::Loss) best = std::max(best, c);
          }
          want_dtc = want.wdl == Wdl::Win ? Value::win(best) : Value::loss(std::max(best, 0));
        }
        const std::uint16_t got[3] = {wdl[i], t.dtw[i], t.dtc[i]};
        const std::uint16_t exp[3] = {want.wdl_only().encode(), want.encode(), want_dtc.encode()};
        for (int mi = 0; mi < 3; ++mi) {
          if (got[mi] == exp[mi] || (mi == 1 && !present.dtw) || (mi == 2 && !present.dtc)) continue;
          ++bad;
#pragma omp critical(damka_verify_list)
          if (listed < max_listed && cb.mismatch) {
            ++listed;
            cb.mismatch(VerifyMismatch{m, mi == 0 ? "wdl" : mi == 1 ? "dtw" : "dtc", to_fen(rules, p),
                                       describe(got[mi]), describe(exp[mi])});
          }
        }
        if (omp_get_thread_num() == 0 && (i & 0xFFFF) == 0 && cb.progress) cb.progress(m, static_cast<std::uint64_t>(i), n);
      }
    }
    VerifyReport r;
    r.material = m;
    r.positions = n;
    r.mismatches = bad;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (cb.table_done) cb.table_done(r);
    reports.push_back(r);
    for (const auto& [mat, last] : last_use)
      if (last == ti) loaded.drop(mat);
  }
  return reports;
}

}  // namespace damka
