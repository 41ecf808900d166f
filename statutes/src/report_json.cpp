// The statute report as JSON (keys in the order written).
#include <climits>
#include <string>

#include "damka/notation.hpp"
#include "damka/statute_json.hpp"
#include "damka/statutes.hpp"
#include "damka/words_json.hpp"
#include "report_detail.hpp"

namespace damka {

namespace {

using json = nlohmann::ordered_json;

json opt_int(int x) { return x < 0 ? json(nullptr) : json(x); }

json side_json(const SideFigures& f) {
  return {{"positions", f.positions},
          {"plain", {{"white_wins", f.white_wins}, {"draws", f.draws}, {"black_wins", f.black_wins}}},
          {"statute_aware", {{"white_wins", f.sa_white_wins}, {"draws", f.sa_draws}, {"black_wins", f.sa_black_wins}}},
          {"turned_into_draws", f.into_draws},
          {"over_limit", f.over_limit},
          {"longest_moves", opt_int(f.longest)},
          {"longest_needed_moves", opt_int(f.longest_needed)}};
}

json example_json(const Example& e, const Rules& rules) {
  return {{"fen", to_fen(rules, e.position)},
          {"to_move", color_word(e.position.side_to_move)},
          {"plain_result", winner_word(e.position.side_to_move, e.dtw.wdl)},
          {"statute_result", winner_word(e.position.side_to_move, e.statute.wdl)},
          {"count", value_json(e.count)},
          {"dtw", value_json(e.dtw)},
          {"moves_needed", opt_int(e.moves_needed)},
          {"line", line_to_string(rules, e.position, e.line)}};
}

json count_json(const CountSpec& c) {
  return {{"min", c.min}, {"max", c.max == INT_MAX ? json(nullptr) : json(c.max)}};
}

json side_spec_json(const SideSpec& s) {
  return {{"kings", count_json(s.kings)}, {"men", count_json(s.men)}, {"pieces", count_json(s.pieces)}};
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
    restarts.push_back("capture");
    restarts.push_back("promotion");
    if (c.restarts & kExitManMove) restarts.push_back("man_move");
    json mats = json::array();
    for (const MaterialFigures& mf : r.materials)
      mats.push_back({{"material", mf.material.name()},
                      {"white_to_move", side_json(mf.side[0])},
                      {"black_to_move", side_json(mf.side[1])}});
    json missing = json::array();
    for (const auto& [pieces, ms] : r.missing)
      for (const Material& m : ms) missing.push_back(m.name());
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
              {"count_ends_on", restarts},
              {"count_reading", reading_of_count(c)},
              {"goal", c.goal},
              {"reading", c.reading},
              {"judged", r.positions() > 0},
              {"totals", {{"white_to_move", side_json(r.total[0])}, {"black_to_move", side_json(r.total[1])}}},
              {"materials", mats},
              {"tables_missing", missing},
              {"limit_suffices", r.positions() > 0 && r.into_draws() == 0},
              {"turned_into_draws",
               {{"count", r.into_draws()},
                {"over_limit", r.over_limit()},
                {"exit_drawn", r.into_draws() - r.over_limit()},
                {"examples", saved}}},
              {"longest_win", r.longest ? example_json(*r.longest, rules) : json(nullptr)},
              {"example", r.example ? example_json(*r.example, rules) : json(nullptr)},
              {"example_caption", r.example_caption},
              {"verdict", r.verdict}};
    clauses.push_back(j);
  }
  json nj = json::array();
  for (const Clause& c : rep.not_judgeable)
    nj.push_back({{"id", c.id}, {"clause", c.number}, {"summary", c.summary}, {"text", c.text}, {"reason", c.reason}});
  json out = {{"schema", "damka-statutes-report/2"},
          {"rulebook",
           {{"name", rep.book_name},
            {"file", "data/rulebooks/" + rep.book_name + ".json"},
            {"title", rep.book_title},
            {"source", rep.book_source},
            {"counting", rep.book_counting}}},
          {"variant", rep.variant},
          {"tables", rep.tables},
          {"max_pieces_considered", rep.max_pieces},
          {"largest_table_pieces", rep.largest_table},
          {"counting_rule", "statute-aware: a covered position is still won when the side that wins with perfect play "
                            "can end the clause's count, still winning, within the limit; a win in d plies needs "
                            "ceil(d/2) moves of the winner with the winner to move, floor(d/2) with the defender to move"},
          {"clauses", clauses},
          {"not_judgeable", nj}};
  if (rep.only) out["only_material"] = rep.only->name();
  return out;
}

}  // namespace damka
