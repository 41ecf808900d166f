// The JSON shared by `damka probe --json` and `damka serve` (position_report.hpp).
#include "damka/position_report.hpp"

#include "damka/notation.hpp"
#include "damka/words_json.hpp"

namespace damka {
namespace {

using json = nlohmann::json;

json value_json(const ProbeResult& r, Metric m) {
  if (!r.ok()) return {{"status", std::string(probe_status_name(r.status))}};
  return damka::value_json(r.value, m);
}

}  // namespace

bool PositionReport::all_known() const {
  return values[0].ok() && values[1].ok() && values[2].ok() && moves_status == ProbeStatus::Ok &&
         (!with_pv || pv_status == ProbeStatus::Ok);
}

PositionReport report_position(const Tablebase& tb, const Position& p, bool with_pv) {
  PositionReport r;
  r.position = p;
  const Metric metrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};
  for (int i = 0; i < 3; ++i) r.values[i] = tb.probe(p, metrics[i]);
  r.moves_status = tb.probe_moves(p, r.moves);
  r.with_pv = with_pv;
  if (with_pv) r.pv_status = tb.principal_variation(p, r.pv);
  return r;
}

json position_json(const Tablebase& tb, const PositionReport& r) {
  const Rules& rules = tb.rules();
  const Position& p = r.position;
  json j;
  j["variant"] = std::string(rules.name);
  j["fen"] = to_fen(rules, p);
  j["material"] = material_of(p).name();
  j["side_to_move"] = color_word(p.side_to_move);
  j["wdl"] = value_json(r.values[0], Metric::WDL);
  j["dtw"] = value_json(r.values[1], Metric::DTW);
  j["dtc"] = value_json(r.values[2], Metric::DTC);
  if (r.moves_status == ProbeStatus::Ok) {
    json arr = json::array();
    for (const MoveValue& m : r.moves) {
      json e = {{"move", move_to_string(rules, p, m.move)},
                {"result", result_word(m.dtw.wdl)},
                {"dtw", distance_json(m.dtw)}};
      e["fen_after"] = to_fen(rules, apply(p, m.move));
      if (!m.dtc_known) e["dtc"] = "unknown";
      else e["dtc"] = distance_json(m.dtc);
      arr.push_back(e);
    }
    j["moves"] = arr;
  } else {
    j["moves"] = {{"status", std::string(probe_status_name(r.moves_status))}};
  }
  if (r.with_pv) {
    if (r.pv_status == ProbeStatus::Ok) {
      j["pv"] = line_moves(rules, p, r.pv);
    } else {
      j["pv"] = {{"status", std::string(probe_status_name(r.pv_status))}};
    }
  }
  if (!r.all_known()) {
    json arr = json::array();
    for (const Material& m : tb.missing_tables(p, Metric::DTW)) arr.push_back(m.name());
    j["missing_tables"] = arr;
  }
  return j;
}

nlohmann::ordered_json root_moves_json(const Rules& rules, const Position& p, const std::vector<RootMove>& moves) {
  using ojson = nlohmann::ordered_json;
  ojson arr = ojson::array();
  for (const RootMove& r : moves) {
    ojson e = {{"move", move_to_string(rules, p, r.move)}, {"result", result_word(r.wdl.wdl)}};
    e["dtw"] = r.dtw_known ? distance_json(r.dtw) : ojson(nullptr);
    e["dtc"] = r.dtc_known ? distance_json(r.dtc) : ojson(nullptr);
    arr.push_back(e);
  }
  return arr;
}

const char* root_ranking_name(RootRanking ranking) {
  return ranking == RootRanking::DTW ? "dtw" : ranking == RootRanking::DTC ? "dtc" : "none";
}

}  // namespace damka
