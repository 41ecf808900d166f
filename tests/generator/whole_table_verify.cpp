// The whole-table reference verify (see whole_table_verify.hpp).
#include "generator/whole_table_verify.hpp"

#include <map>
#include <memory>

#include "damka/generate.hpp"
#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"

namespace damka::testing {
namespace {

class Loaded : public TableSource {
 public:
  Loaded(const Rules& r, const std::filesystem::path& dir) : r_(r), dir_(dir) {}
  const SolvedTable* find(const Material& c) const override {
    auto it = tables_.find(c);
    return it == tables_.end() ? nullptr : it->second.get();
  }
  Expected<const SolvedTable*> get(const Material& c) {
    if (const SolvedTable* t = find(c)) return t;
    auto t = load_solved_table(r_, dir_, c, this);
    if (!t) return t.error();
    auto owned = std::make_unique<SolvedTable>(std::move(*t));
    const SolvedTable* p = owned.get();
    tables_.emplace(c, std::move(owned));
    return p;
  }

 private:
  const Rules& r_;
  std::filesystem::path dir_;
  std::map<Material, std::unique_ptr<SolvedTable>> tables_;
};

}  // namespace

std::vector<VerifyReport> whole_table_verify(const Rules& rules, const std::filesystem::path& dir,
                                             const std::vector<Material>& materials) {
  Loaded loaded(rules, dir);
  std::vector<VerifyReport> out;
  for (const Material& m : materials) {
    VerifyReport r;
    r.material = m;
    r.positions = table_slots(m);
    std::string missing;
    for (const Material& s : successors_closure(m))
      if (auto t = loaded.get(s); !t && missing.empty()) missing = t.message();
    auto self = loaded.get(m);
    std::vector<std::uint16_t> wdl;
    auto reader = TableReader::open(table_path(dir, rules, m, Metric::WDL));
    if (!missing.empty() || !self || !reader) {
      r.error = !missing.empty() ? missing : !self ? self.message() : reader.message();
      out.push_back(r);
      continue;
    }
    std::vector<std::uint16_t> block;
    for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
      if (!(*reader)->read_block(b, block).ok()) r.error = "bad WDL block";
      wdl.insert(wdl.end(), block.begin(), block.end());
    }
    const SolvedTable& t = **self;
    const MaterialIndex index(m);
    auto stored = [&](Metric metric) {
      return [&, metric](const Position& q, Value& v) {
        const Material c = material_of(q).canonical();
        const SolvedTable* st = c == m ? &t : loaded.find(c);
        const std::uint64_t slot = locate_slot(MaterialIndex(c), q);
        v = Value::decode(metric == Metric::DTC ? st->dtc[slot] : st->dtw[slot]);
        return 0;
      };
    };
    MoveList moves;
    for (std::uint64_t i = 0; i < t.dtw.size() && r.error.empty(); ++i) {
      const Position p = position_at(index, i);
      if (is_derived(rules, p)) continue;
      generate_moves(rules, p, moves);
      std::vector<Value> sd, sc;
      for (std::size_t j = 0; j < moves.size(); ++j) {
        Value a, b;
        oracle_value(rules, apply(p, moves[j]), Metric::DTW, stored(Metric::DTW), a);
        oracle_value(rules, apply(p, moves[j]), Metric::DTC, stored(Metric::DTC), b);
        sd.push_back(a);
        sc.push_back(b);
      }
      int best_loss = -1, worst_win = -1;
      bool draw = false;
      for (const Value& v : sd) {
        if (v.wdl == Wdl::Loss) best_loss = best_loss < 0 ? v.plies : std::min<int>(best_loss, v.plies);
        else if (v.wdl == Wdl::Win) worst_win = std::max<int>(worst_win, v.plies);
        else draw = true;
      }
      const Value want = best_loss >= 0 ? Value::win(best_loss + 1)
                         : draw         ? Value::draw()
                         : sd.empty()   ? Value::loss(0)
                                        : Value::loss(worst_win + 1);
      Value want_dtc = Value::draw();
      if (want.wdl != Wdl::Draw) {
        int best = -1;
        for (std::size_t j = 0; j < moves.size(); ++j) {
          const int c = (moves[j].is_capture() || moves[j].promotes) ? 1 : sc[j].plies + 1;
          if (want.wdl == Wdl::Win && sd[j].wdl == Wdl::Loss) best = best < 0 ? c : std::min(best, c);
          if (want.wdl == Wdl::Loss) best = std::max(best, c);
        }
        want_dtc = want.wdl == Wdl::Win ? Value::win(best) : Value::loss(std::max(best, 0));
      }
      r.mismatches += (wdl[i] != want.wdl_only().encode()) + (t.dtw[i] != want.encode()) +
                      (t.dtc[i] != want_dtc.encode());
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace damka::testing
