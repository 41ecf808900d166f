// damka probe, the output: text or JSON (probe_command.hpp).  The words
// are words.hpp's, the JSON position_report.hpp's and statute_json.hpp's.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "damka/notation.hpp"
#include "damka/statute_json.hpp"
#include "damka/words.hpp"
#include "probe_command.hpp"

namespace damka::cli {
namespace {

// "unknown (no wdl table for 2Kv1K in T/russian)" and the like.
std::string status_text(const Tablebase& tb, const Position& p, ProbeStatus s, Metric m) {
  if (s == ProbeStatus::Unknown) return "unknown (" + probe_status_error(tb, p, s, m).message() + ")";
  if (s == ProbeStatus::Corrupt) return "unknown (table refused: " + probe_status_error(tb, p, s, m).message() + ")";
  return std::string(probe_status_name(s));
}

void print_json(const ProbeOptions& o, const ProbeOutcome& r, const Report& report) {
  const Tablebase& tb = *r.tb;
  const PositionReport& pos = r.position;
  const Position& p = pos.position;
  // The same JSON as `damka serve` answers (position_report.hpp), inside the
  // CLI's object (command, variant, folder).
  Json j = report.object();
  const nlohmann::json position = position_json(tb, pos);
  for (const auto& [k, v] : position.items()) j[k] = v;
  if (!r.note.empty()) j["note"] = r.note;
  // Without the full move list (DTW missing), the value-keeping moves.
  if (pos.moves_status != ProbeStatus::Ok && r.root_status == ProbeStatus::Ok) {
    // Keys sorted, as the position's (nlohmann::json).
    j["root_moves"] = nlohmann::json(root_moves_json(*r.rules, p, r.root_moves));
    j["root_ranking"] = root_ranking_name(r.ranking);
  }
  if (r.verdict) {
    j["statutes"] = nlohmann::json(statutes_json(o.rulebook, 0, *r.verdict));  // keys sorted
    j["statutes"].erase("moves_played");
    Json counters = Json::object();
    for (const auto& [k, n] : r.counters) counters[k] = n;
    j["statutes"]["counters"] = counters;
    if (r.game) j["statutes"]["game_moves"] = r.game->moves.size();
  }
  if (const auto errors = tb.errors(); !errors.empty()) j["errors"] = errors;
  if (!pos.all_known()) {
    nlohmann::json arr = nlohmann::json::array();
    for (const Material& m : tb.missing_tables(p, Metric::DTW)) arr.push_back(m.name());
    j["missing_tables"] = arr;
    j["error"] = "some values are not known (tables missing or refused in " + tb.directory().string() + ")";
    j["exit_code"] = 1;
  } else if (r.verdict && !r.verdict->ok()) {
    j["error"] = "statutes: " + r.verdict->message();
    j["exit_code"] = 1;
  }
  std::cout << j.dump(2) << "\n";
}

void print_moves_text(const ProbeOutcome& r) {
  const Tablebase& tb = *r.tb;
  const Rules& rules = *r.rules;
  const PositionReport& pos = r.position;
  const Position& p = pos.position;
  if (pos.moves_status != ProbeStatus::Ok && r.root_status == ProbeStatus::Ok && !r.root_moves.empty()) {
    // No DTW for every move: the moves that keep the value, from WDL.
    std::printf("\nMoves: %s\n", status_text(tb, p, pos.moves_status, Metric::DTW).c_str());
    std::printf("%-24s %s\n", "Moves keeping the value", r.ranking == RootRanking::None ? "(unranked: WDL only)"
                                                         : r.ranking == RootRanking::DTW ? "(by DTW)"
                                                                                          : "(by DTC)");
    for (const RootMove& m : r.root_moves) {
      std::string dist;
      if (m.dtw_known) dist += "DTW " + describe_value(m.dtw, Metric::DTW);
      if (m.dtc_known) dist += std::string(dist.empty() ? "" : ", ") + "DTC " + describe_value(m.dtc, Metric::DTC);
      std::printf("  %-22s %-6s %s\n", move_to_string(rules, p, m.move).c_str(),
                  describe_value(m.wdl, Metric::WDL).c_str(), dist.c_str());
    }
  } else if (pos.moves_status != ProbeStatus::Ok) {
    std::printf("\nMoves: %s\n", status_text(tb, p, pos.moves_status, Metric::DTW).c_str());
  } else if (pos.moves.empty()) {
    std::printf("\nNo legal moves: the side to move has lost.\n");
  } else {
    std::printf("\n%-24s %-20s %s\n", "Moves (best first)", "DTW", "DTC");
    for (const MoveValue& m : pos.moves)
      std::printf("  %-22s %-20s %s\n", move_to_string(rules, p, m.move).c_str(),
                  describe_value(m.dtw, Metric::DTW).c_str(),
                  m.dtc_known ? describe_value(m.dtc, Metric::DTC).c_str() : "unknown");
  }
}

void print_text(const ProbeOptions& o, const ProbeOutcome& r) {
  const Tablebase& tb = *r.tb;
  const Rules& rules = *r.rules;
  const PositionReport& pos = r.position;
  const Position& p = pos.position;
  std::printf("%s, %s to move\n", std::string(rules.display_name).c_str(), color_title(p.side_to_move));
  if (!r.note.empty()) std::printf("%s\n", r.note.c_str());
  std::printf("%s\n", board_diagram(rules, p).c_str());
  std::printf("FEN       %s\n", to_fen(rules, p).c_str());
  std::printf("Material  %s\n", material_of(p).name().c_str());
  const Metric metrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};
  const char* labels[3] = {"WDL", "DTW", "DTC"};
  for (int i = 0; i < 3; ++i) {
    const ProbeResult& v = pos.values[i];
    std::string text = v.ok() ? describe_value(v.value, metrics[i]) : status_text(tb, p, v.status, metrics[i]);
    if (i == 2 && v.ok() && v.value.wdl != Wdl::Draw) text += " (to the next capture or promotion)";
    std::printf("%-9s %s\n", labels[i], text.c_str());
  }
  print_moves_text(r);
  if (o.pv) {
    if (pos.pv_status != ProbeStatus::Ok)
      std::printf("\nPrincipal variation: %s\n", status_text(tb, p, pos.pv_status, Metric::DTW).c_str());
    else if (pos.pv.empty() && pos.values[1].ok() && pos.values[1].value.wdl == Wdl::Draw)
      std::printf("\nPrincipal variation: none (a draw never ends)\n");
    else
      std::printf("\nPrincipal variation (%zu plies): %s\n", pos.pv.size(), line_to_string(rules, p, pos.pv).c_str());
  }
}

void print_verdict_text(const ProbeOptions& o, const ProbeOutcome& r, const Report& report) {
  if (!r.verdict->ok()) {
    report.warn("statutes: " + r.verdict->message());
    return;
  }
  const StatuteVerdict& v = **r.verdict;
  std::string played;
  for (const auto& [k, n] : r.counters) played += (played.empty() ? "" : ", ") + k + "=" + std::to_string(n);
  std::printf("\nStatutes (%s; moves played: %s): %s\n", o.rulebook.c_str(), played.empty() ? "none" : played.c_str(),
              v.summary.c_str());
  for (const ClauseJudgement& cj : v.clauses)
    std::printf("  %-16s limit %2d, played %2d, needs %s: %s\n", cj.id.c_str(), cj.limit, cj.moves_played,
                cj.moves_needed < 0 ? "-" : std::to_string(cj.moves_needed).c_str(),
                !cj.winner ? "no win to judge" : cj.in_time ? "in time" : "a draw under this clause");
}

}  // namespace

int print_probe(const ProbeOptions& o, const ProbeOutcome& r, const Report& report) {
  if (o.json) {
    print_json(o, r, report);
  } else {
    print_text(o, r);
    if (r.verdict) print_verdict_text(o, r, report);
  }
  if (r.verdict && !r.verdict->ok()) return 1;
  const PositionReport& pos = r.position;
  if (!pos.all_known()) {
    const ProbeStatus all[5] = {pos.values[0].status, pos.values[1].status, pos.values[2].status, pos.moves_status,
                                pos.pv_status};
    const auto any = [&](ProbeStatus st) { return std::find(std::begin(all), std::end(all), st) != std::end(all); };
    std::string why = "tables missing";
    if (any(ProbeStatus::IoError)) why = "I/O error: a table could not be read now (not damaged; try again)";
    else if (any(ProbeStatus::Corrupt)) why = "a table is refused as damaged or foreign";
    report.warn("some values are not known (" + why + "; tables in " + r.tb->directory().string() + ")");
    return 1;
  }
  return 0;
}

}  // namespace damka::cli
