// The statute report: every judgeable clause against the tables.
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "damka/index.hpp"
#include "damka/notation.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/statutes.hpp"

namespace damka {
namespace {

using json = nlohmann::ordered_json;

const char* colour_word(Color c) { return c == Color::White ? "White" : "Black"; }

// Accumulates one clause while the materials are walked.
struct ClauseWork {
  const Clause* clause = nullptr;
  ClauseReport report;
  std::optional<Example> shortest_over;  // the example when the clause saves wins
  std::optional<Example> draw_example;   // the example otherwise
  std::optional<Example> any_example;
};

bool better_saved(const Example& a, const Example& b) { return a.moves_needed > b.moves_needed; }

void keep_saved(std::vector<Example>& v, const Example& e, int n) {
  if (n <= 0) return;
  if (static_cast<int>(v.size()) == n && !better_saved(e, v.back())) return;
  auto it = std::upper_bound(v.begin(), v.end(), e, better_saved);
  v.insert(it, e);
  if (static_cast<int>(v.size()) > n) v.pop_back();
}

std::string fen(const Rules& rules, const Position& p) { return to_fen(rules, p); }

std::string materials_list(const std::vector<Material>& ms, std::size_t max_names) {
  if (ms.size() > max_names) return std::to_string(ms.size()) + " materials";
  std::string s;
  for (const Material& m : ms) s += (s.empty() ? "" : ", ") + m.name();
  return s;
}

std::string missing_text(const ClauseReport& r) {
  if (r.missing.empty()) return {};
  std::string s = "tables missing for ";
  bool first = true;
  for (const auto& [pieces, ms] : r.missing) {
    s += (first ? "" : "; ") + std::to_string(pieces) + "-piece materials (" + materials_list(ms, 6) + ")";
    first = false;
  }
  return s;
}

std::string value_text(Value v) {
  if (v.wdl == Wdl::Draw) return "draw";
  return std::string(v.wdl == Wdl::Win ? "win" : "loss") + " in " + std::to_string(v.plies) + " plies";
}

std::string winner_text(const Position& p, Value v) {
  if (v.wdl == Wdl::Draw) return "draw";
  const Color w = v.wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);
  return std::string(colour_word(w)) + " wins";
}

void finish_clause(ClauseWork& w, const Rules& rules) {
  ClauseReport& r = w.report;
  const Clause& c = r.clause;
  for (const MaterialFigures& mf : r.materials)
    for (int s = 0; s < 2; ++s) r.total[s].add(mf.side[s]);
  if (w.shortest_over) {
    r.example = w.shortest_over;
    r.example_caption = "won in " + std::to_string(w.shortest_over->moves_needed) + " moves, over the limit of " +
                        std::to_string(c.limit) + ": the clause makes it a draw";
  } else if (w.draw_example) {
    r.example = w.draw_example;
    r.example_caption = "a covered position drawn with perfect play";
  } else if (w.any_example) {
    r.example = w.any_example;
    r.example_caption = "a covered position";
  }
  const std::string missing = missing_text(r);
  if (r.positions() == 0) {
    r.verdict = "not judged: no position it covers is in the tables" + (missing.empty() ? "" : " (" + missing + ")");
    return;
  }
  std::string v;
  if (r.over_limit() == 0) {
    v = "the limit suffices for every won position";
    if (r.longest)
      v += " (longest win: " + std::to_string(r.longest->moves_needed) + " of " + std::to_string(c.limit) +
           " moves, e.g. " + fen(rules, r.longest->position) + ")";
    else
      v += " (no covered position is won)";
  } else {
    v = std::to_string(r.over_limit()) + " won positions need more moves (longest: " +
        std::to_string(r.longest_moves()) + "), e.g. " + fen(rules, r.longest->position);
  }
  if (!missing.empty()) v += "; judged on the tables present only, " + missing;
  r.verdict = v;
}

}  // namespace

void SideFigures::add(const SideFigures& o) {
  positions += o.positions;
  white_wins += o.white_wins;
  draws += o.draws;
  black_wins += o.black_wins;
  over_limit += o.over_limit;
  longest = std::max(longest, o.longest);
  longest_dtc = std::max(longest_dtc, o.longest_dtc);
  longest_dtw = std::max(longest_dtw, o.longest_dtw);
  dtc_differs_from_dtw += o.dtc_differs_from_dtw;
}

Expected<StatuteReport> analyse(const Rulebook& book, const Rules& rules, const ValueSource& values,
                                const ReportOptions& options) {
  if (!book.governs(rules)) {
    std::string list;
    for (const auto& v : book.variants) list += (list.empty() ? "" : ", ") + v;
    return Error("rulebook " + book.name + " governs " + list + ", not " + std::string(rules.name));
  }
  StatuteReport rep;
  rep.book_name = book.name;
  rep.book_title = book.title;
  rep.book_source = book.source;
  rep.book_counting = book.counting;
  rep.variant = std::string(rules.name);
  rep.tables = values.describe();
  rep.max_pieces = options.max_pieces;

  std::vector<ClauseWork> work;
  for (const Clause& c : book.clauses) {
    if (!c.judgeable) {
      rep.not_judgeable.push_back(c);
      continue;
    }
    ClauseWork w;
    w.clause = &c;
    w.report.clause = c;
    work.push_back(std::move(w));
  }

  // Every material any clause may cover, in build order.
  std::vector<Material> order = build_order(std::max(2, options.max_pieces));
  for (const Material& m : order) {
    std::vector<std::size_t> covering;
    for (std::size_t i = 0; i < work.size(); ++i)
      if (clause_matches_material(book, *work[i].clause, m)) covering.push_back(i);
    if (covering.empty()) continue;
    if (!values.has_table(m)) {
      for (std::size_t i : covering) work[i].report.missing[m.pieces()].push_back(m);
      continue;
    }
    auto table = values.table(m);
    if (!table) return table.error();
    if (!*table) {
      for (std::size_t i : covering) work[i].report.missing[m.pieces()].push_back(m);
      continue;
    }
    const SolvedTable& t = **table;
    rep.largest_table = std::max(rep.largest_table, m.pieces());
    const std::vector<std::uint16_t>* kings_only = nullptr;
    for (std::size_t i : covering) {
      if (work[i].clause->metric() == CountMetric::KingsOnly && !kings_only) {
        auto k = values.kings_only(m);
        if (!k) return k.error();
        kings_only = *k;
      }
    }
    std::vector<MaterialFigures> figs(covering.size());
    for (MaterialFigures& f : figs) f.material = m;
    const MaterialIndex index(m);
    const std::uint64_t n = table_slots(index);
    if (t.dtw.size() != n || t.dtc.size() != n) return Error("table " + m.name() + " has the wrong size");
    for (std::uint64_t s = 0; s < n; ++s) {
      const Value dtw = Value::decode(t.dtw[s]);
      const Value dtc = Value::decode(t.dtc[s]);
      const Value ko = kings_only ? Value::decode((*kings_only)[s]) : dtc;
      const Position p0 = position_at(index, s);
      // A symmetric material stores White to move only; Black to move is
      // the colour-reversed image, with the same value.
      const int images = m.is_symmetric() ? 2 : 1;
      for (int im = 0; im < images; ++im) {
        const Position p = im == 0 ? p0 : p0.flipped();
        std::optional<Color> winner;
        if (dtw.wdl != Wdl::Draw) winner = dtw.wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);
        for (std::size_t k = 0; k < covering.size(); ++k) {
          ClauseWork& w = work[covering[k]];
          const Clause& c = *w.clause;
          const auto stronger = clause_covers(book, c, p, winner);
          if (!stronger) continue;
          SideFigures& f = figs[k].side[idx(p.side_to_move)];
          ++f.positions;
          const Value cv = c.metric() == CountMetric::KingsOnly ? ko : c.metric() == CountMetric::DTW ? dtw : dtc;
          if (!w.any_example) w.any_example = Example{p, cv, dtc, dtw, winner_moves(cv)};
          if (!winner) {
            ++f.draws;
            if (!w.draw_example && p.side_to_move == *stronger) w.draw_example = Example{p, cv, dtc, dtw, -1};
            continue;
          }
          (*winner == Color::White ? f.white_wins : f.black_wins)++;
          const int need = winner_moves(cv);
          const Example e{p, cv, dtc, dtw, need};
          if (need > f.longest) f.longest = need;
          f.longest_dtc = std::max(f.longest_dtc, winner_moves(dtc));
          f.longest_dtw = std::max(f.longest_dtw, winner_moves(dtw));
          if (dtc.plies != dtw.plies) ++f.dtc_differs_from_dtw;
          if (!w.report.longest || need > w.report.longest->moves_needed) w.report.longest = e;
          if (need > c.limit) {
            ++f.over_limit;
            keep_saved(w.report.saved, e, options.examples);
            if (!w.shortest_over || need < w.shortest_over->moves_needed) w.shortest_over = e;
          }
        }
      }
    }
    for (std::size_t k = 0; k < covering.size(); ++k)
      if (figs[k].side[0].positions + figs[k].side[1].positions > 0)
        work[covering[k]].report.materials.push_back(figs[k]);
  }
  for (ClauseWork& w : work) {
    finish_clause(w, rules);
    rep.clauses.push_back(std::move(w.report));
  }
  return rep;
}

// ------------------------------------------------------------------- text

std::string report_text(const StatuteReport& rep, const Rules& rules) {
  std::ostringstream o;
  char buf[512];
  o << rep.book_title << "\n";
  o << "Source: " << rep.book_source << "\n";
  o << "Judged against " << rep.variant << " " << rep.tables << " (materials up to " << rep.max_pieces
    << " pieces considered; "
    << (rep.largest_table ? "tables present up to " + std::to_string(rep.largest_table) + " pieces"
                          : std::string("no table present"))
    << ")\n";
  if (!rep.book_counting.empty()) o << "Counting: " << rep.book_counting << "\n";
  o << "A won position whose count is d plies needs ceil(d/2) moves of the winner with the winner to move,\n"
       "floor(d/2) with the defender to move.  Materials are written with White as the side with more pieces.\n";
  for (const ClauseReport& r : rep.clauses) {
    const Clause& c = r.clause;
    o << "\n" << c.id << "  " << c.summary << "\n";
    o << "  material    " << c.material_text() << "\n";
    o << "  position    " << c.condition_text() << "\n";
    o << "  limit       " << c.limit << " moves; "
      << (c.metric() == CountMetric::DTW ? "nothing restarts the count, it runs to the end of the game (measured by DTW)"
          : c.metric() == CountMetric::DTC
              ? "the count restarts on " + c.restarts_text() + " (measured by DTC)"
              : "the count restarts on " + c.restarts_text() + " (measured by the kings-only distance)")
      << "\n";
    o << "  goal        " << c.goal << "\n";
    if (!c.reading.empty()) o << "  reading     " << c.reading << "\n";
    if (!r.materials.empty()) {
      std::snprintf(buf, sizeof buf, "  %-10s %-7s %10s %10s %10s %10s %7s %5s %5s %10s\n", "material", "to move",
                    "positions", "White wins", "draws", "Black wins", "longest", "DTC", "DTW", "over limit");
      o << buf;
      auto moves = [](int m) { return m < 0 ? std::string("-") : std::to_string(m); };
      auto row = [&](const std::string& name, const char* side, const SideFigures& f) {
        std::snprintf(buf, sizeof buf, "  %-10s %-7s %10llu %10llu %10llu %10llu %7s %5s %5s %10llu\n", name.c_str(),
                      side, static_cast<unsigned long long>(f.positions),
                      static_cast<unsigned long long>(f.white_wins), static_cast<unsigned long long>(f.draws),
                      static_cast<unsigned long long>(f.black_wins), moves(f.longest).c_str(),
                      moves(f.longest_dtc).c_str(), moves(f.longest_dtw).c_str(),
                      static_cast<unsigned long long>(f.over_limit));
        o << buf;
      };
      for (const MaterialFigures& mf : r.materials) {
        for (int s = 0; s < 2; ++s)
          if (mf.side[s].positions) row(mf.material.name(), s == 0 ? "White" : "Black", mf.side[s]);
      }
      if (r.materials.size() > 1) {
        row("total", "White", r.total[0]);
        row("total", "Black", r.total[1]);
      }
      o << "  (longest: most moves a won position needs, counted as the clause counts; DTC: counted to the next\n"
           "  capture or promotion; DTW: to the end of the game; over limit: won positions needing more than "
        << c.limit << ")\n";
      const std::uint64_t differs = r.total[0].dtc_differs_from_dtw + r.total[1].dtc_differs_from_dtw;
      if (differs)
        o << "  DTC and DTW differ in " << differs << " of " << r.wins()
          << " won positions (the win goes on after a capture or promotion, e.g. a sacrifice the defender must take)\n";
      else if (r.wins())
        o << "  DTC equals DTW in every won position\n";
    }
    o << "  verdict     " << r.verdict << "\n";
    if (r.over_limit()) {
      o << "  into draws  " << r.over_limit() << " won positions (White to move " << r.total[0].over_limit
        << ", Black to move " << r.total[1].over_limit << "); the longest:\n";
      for (const Example& e : r.saved)
        o << "              " << fen(rules, e.position) << "  " << winner_text(e.position, e.dtw) << ", needs "
          << e.moves_needed << " moves\n";
    } else if (r.positions()) {
      o << "  into draws  none\n";
    }
  }
  if (!rep.not_judgeable.empty()) {
    o << "\nClauses a table cannot judge:\n";
    for (const Clause& c : rep.not_judgeable) o << "  " << c.id << "  " << c.summary << " -- " << c.reason << "\n";
  }
  return o.str();
}

// ------------------------------------------------------------------- JSON

namespace {

json side_json(const SideFigures& f) {
  return {{"positions", f.positions},       {"white_wins", f.white_wins},
          {"draws", f.draws},               {"black_wins", f.black_wins},
          {"over_limit", f.over_limit},     {"longest_moves", f.longest < 0 ? json(nullptr) : json(f.longest)},
          {"longest_dtc_moves", f.longest_dtc < 0 ? json(nullptr) : json(f.longest_dtc)},
          {"longest_dtw_moves", f.longest_dtw < 0 ? json(nullptr) : json(f.longest_dtw)},
          {"dtc_differs_from_dtw", f.dtc_differs_from_dtw}};
}

const char* result_word(const Position& p, Value v) {
  if (v.wdl == Wdl::Draw) return "draw";
  const Color w = v.wdl == Wdl::Win ? p.side_to_move : opposite(p.side_to_move);
  return w == Color::White ? "white wins" : "black wins";
}

json example_json(const Example& e, const Rules& rules) {
  json j = {{"fen", to_fen(rules, e.position)},
            {"to_move", e.position.side_to_move == Color::White ? "white" : "black"},
            {"result", result_word(e.position, e.dtw)},
            {"count", value_text(e.count)},
            {"count_plies", e.count.plies},
            {"dtc_plies", e.dtc.plies},
            {"dtw_plies", e.dtw.plies}};
  if (e.moves_needed >= 0) j["moves_needed"] = e.moves_needed;
  return j;
}

json count_json(const CountSpec& c) {
  if (c.min == c.max) return c.min;
  if (c.max == INT_MAX) return std::to_string(c.min) + "+";
  return {{"min", c.min}, {"max", c.max}};
}

json side_spec_json(const SideSpec& s) {
  json j = json::object();
  if (!s.kings.is_any()) j["kings"] = count_json(s.kings);
  if (!s.men.is_any()) j["men"] = count_json(s.men);
  if (s.pieces.min > 1 || s.pieces.max != INT_MAX) j["pieces"] = count_json(s.pieces);
  return j;
}

}  // namespace

nlohmann::ordered_json report_json(const StatuteReport& rep, const Rules& rules) {
  json clauses = json::array();
  for (const ClauseReport& r : rep.clauses) {
    const Clause& c = r.clause;
    json sides = json::array();
    for (const SidePair& sp : c.sides)
      sides.push_back({{"stronger", side_spec_json(sp.stronger)}, {"weaker", side_spec_json(sp.weaker)}});
    json conds = json::array();
    for (Condition k : c.conditions) conds.push_back(condition_name(k));
    json restarts = json::array();
    if (c.restarts & kRestartCapture) restarts.push_back("capture");
    if (c.restarts & kRestartPromotion) restarts.push_back("promotion");
    if (c.restarts & kRestartManMove) restarts.push_back("man_move");
    json mats = json::array();
    for (const MaterialFigures& mf : r.materials)
      mats.push_back({{"material", mf.material.name()},
                      {"white_to_move", side_json(mf.side[0])},
                      {"black_to_move", side_json(mf.side[1])}});
    json missing = json::object();
    for (const auto& [pieces, ms] : r.missing) {
      json names = json::array();
      for (const Material& m : ms) names.push_back(m.name());
      missing[std::to_string(pieces)] = names;
    }
    json saved = json::array();
    for (const Example& e : r.saved) saved.push_back(example_json(e, rules));
    json j = {{"id", c.id},
              {"clause", c.number},
              {"summary", c.summary},
              {"text", c.text},
              {"material", {{"text", c.material_text()}, {"sides", sides}, {"pieces", count_json(c.pieces)}}},
              {"position", conds},
              {"except", c.except},
              {"limit", c.limit},
              {"restarts", restarts},
              {"metric", count_metric_name(c.metric())},
              {"goal", c.goal},
              {"reading", c.reading},
              {"judged", r.positions() > 0},
              {"covered", {{"white_to_move", r.total[0].positions}, {"black_to_move", r.total[1].positions}}},
              {"totals", {{"white_to_move", side_json(r.total[0])}, {"black_to_move", side_json(r.total[1])}}},
              {"materials", mats},
              {"tables_missing", missing},
              {"limit_suffices", r.positions() > 0 && r.over_limit() == 0},
              {"over_limit", r.over_limit()},
              {"turned_into_draws", {{"count", r.over_limit()}, {"longest", saved}}},
              {"verdict", r.verdict}};
    j["longest_win"] = r.longest ? example_json(*r.longest, rules) : json(nullptr);
    j["example"] = r.example ? example_json(*r.example, rules) : json(nullptr);
    j["example_caption"] = r.example_caption;
    clauses.push_back(j);
  }
  json nj = json::array();
  for (const Clause& c : rep.not_judgeable)
    nj.push_back({{"id", c.id}, {"clause", c.number}, {"summary", c.summary}, {"text", c.text}, {"reason", c.reason}});
  return {{"rulebook", {{"name", rep.book_name}, {"title", rep.book_title}, {"source", rep.book_source},
                        {"counting", rep.book_counting}}},
          {"variant", rep.variant},
          {"tables", rep.tables},
          {"max_pieces_considered", rep.max_pieces},
          {"largest_table_pieces", rep.largest_table},
          {"counting_rule", "a won position whose count is d plies needs ceil(d/2) moves of the winner with the winner to move, floor(d/2) with the defender to move"},
          {"clauses", clauses},
          {"not_judgeable", nj}};
}

}  // namespace damka
