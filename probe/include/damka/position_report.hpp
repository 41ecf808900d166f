// A position's values, moves and principal variation from the tables, and
// their JSON: the one JSON that `damka probe --json` prints and that
// `damka serve` answers (GET /api/v1/{variant}?fen=...), built by one function.
// It lives with the probe (not with the server) so that every front end
// writes it without linking the HTTP library.
//
//   damka::PositionReport r = damka::report_position(tb, position, /*with_pv=*/true);
//   nlohmann::json j = damka::position_json(tb, r);          // "wdl", "dtw", "dtc", "moves", "pv", ...
//   if (verdict) j["statutes"] = damka::statutes_json("russian-federation", 0, *verdict);  // statute_json.hpp
//
// Words (words.hpp): results are "win", "draw" or "loss" for the side to
// move; a value the tables cannot give is {"status": probe_status_name()}
// ("unknown (table missing)", "table corrupt", ...), never a guess, and
// "missing_tables" then names the materials whose tables are missing.
// Distances are in plies (DTW: to the end of the game; DTC: to the next
// capture or promotion); a draw has none (null).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "damka/probe.hpp"

namespace damka {

struct PositionReport {
  Position position;
  ProbeResult values[3];  // WDL, DTW, DTC of the position, for its side to move
  ProbeStatus moves_status = ProbeStatus::Ok;
  std::vector<MoveValue> moves;  // best first (Tablebase::probe_moves); empty unless moves_status is Ok
  bool with_pv = false;
  ProbeStatus pv_status = ProbeStatus::Ok;
  std::vector<Move> pv;  // the principal variation when with_pv and pv_status is Ok

  // Every value asked for is exact.
  bool all_known() const;
};

// Probes p's WDL, DTW and DTC, every legal move and, with `with_pv`, the
// principal variation.  Cost: three probes, one DTW (and DTC) probe per legal
// move, and with the PV one probe_moves per ply of it (a few hundred probes
// for a long win).  Thread-safe (Tablebase is).  p must be probeable
// (probeable(), probe.hpp; the caller says what is wrong otherwise).
PositionReport report_position(const Tablebase& tb, const Position& p, bool with_pv);

// The JSON of a report: variant, fen, material, side_to_move, wdl, dtw, dtc,
// moves (each with move, result, dtw, dtc and fen_after, the position it
// leads to), pv (when asked for) and
// missing_tables (when some value is not known).  Moves are written in the
// variant's notation (numeric squares for English, mirrored names for
// Filipino and Mozambique).  Thread-safe; cost linear in moves and PV.
nlohmann::json position_json(const Tablebase& tb, const PositionReport& report);

// The value-keeping moves of Tablebase::probe_root as JSON, in their order:
// [{"move", "result", "dtw", "dtc"}], a distance null when unknown or a
// draw.  Pure; cost linear in the moves.
nlohmann::ordered_json root_moves_json(const Rules& rules, const Position& p, const std::vector<RootMove>& moves);
// "dtw", "dtc" or "none": the metric probe_root ranked its moves by.
const char* root_ranking_name(RootRanking ranking);

}  // namespace damka
