// The JSON of material statistics shared by `damka info --stats --json` and
// `damka serve` (stats_report.hpp).
#include "damka/stats_report.hpp"

#include "damka/notation.hpp"

namespace damka {
namespace {

using json = nlohmann::json;

json counts_json(const WdlCounts& c) { return {{"wins", c.wins}, {"draws", c.draws}, {"losses", c.losses}}; }

json longest_json(const Rules& rules, const LongestWin& w) {
  if (!w.found) return nullptr;
  json j = {{"plies", w.plies},
            {"positions", w.count},
            {"material", w.material.name()},
            {"slot", w.slot},
            {"fen", to_fen(rules, w.position)},
            {"side_to_move", color_word(w.position.side_to_move)}};
  if (w.line_status == ProbeStatus::Ok) {
    j["pv"] = line_moves(rules, w.position, w.line);
  } else {
    j["pv"] = {{"status", std::string(probe_status_name(w.line_status))}};
  }
  return j;
}

void put_counts(json& j, std::uint64_t positions, const WdlCounts& total, std::uint64_t captures) {
  j["positions"] = positions;
  j["wins"] = total.wins;
  j["draws"] = total.draws;
  j["losses"] = total.losses;
  j["capture_positions"] = captures;
}

}  // namespace

json material_stats_json(const Rules& rules, const MaterialStats& s) {
  json j = {{"material", s.material.name()},
            {"pieces", s.material.pieces()},
            {"sides_to_move", s.sides == 2 ? "white, black" : "white (symmetric material)"}};
  put_counts(j, s.positions, s.total, s.captures);
  j["white_to_move"] = counts_json(s.by_side[0]);
  if (s.sides == 2) j["black_to_move"] = counts_json(s.by_side[1]);
  json metrics = json::array({"wdl"});
  if (s.has_dtw) metrics.push_back("dtw");
  if (s.has_dtc) metrics.push_back("dtc");
  j["metrics"] = metrics;
  j["longest_win"] = {{"dtw", longest_json(rules, s.dtw)}, {"dtc", longest_json(rules, s.dtc)}};
  return j;
}

json piece_count_stats_json(const Rules& rules, const PieceCountStats& s) {
  json j = {{"pieces", s.pieces},
            {"materials", s.materials},
            {"materials_with_dtw", s.materials_with_dtw},
            {"materials_with_dtc", s.materials_with_dtc}};
  put_counts(j, s.positions, s.total, s.captures);
  j["longest_win"] = {{"dtw", longest_json(rules, s.dtw)}, {"dtc", longest_json(rules, s.dtc)}};
  return j;
}

json variant_stats_json(const Rules& rules, std::span<const MaterialStats> materials) {
  json ms = json::array(), pieces = json::array();
  for (const MaterialStats& s : materials) ms.push_back(material_stats_json(rules, s));
  for (const PieceCountStats& p : stats_by_pieces(materials)) pieces.push_back(piece_count_stats_json(rules, p));
  return {{"variant", std::string(rules.name)},
          {"counts_cover", std::string(kStatsCoverage)},
          {"materials", ms},
          {"by_pieces", pieces}};
}

}  // namespace damka
