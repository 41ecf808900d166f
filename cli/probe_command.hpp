// damka probe, in three steps: the options CLI11 fills (cmd_probe.cpp), the
// work (probe_run.cpp: read the game, choose the variant, open the tables,
// probe, judge) and the output (probe_print.cpp: text or JSON, through the
// words of words.hpp and the JSON of position_report.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/env.hpp"
#include "damka/position_report.hpp"
#include "damka/probe.hpp"
#include "damka/statutes.hpp"

namespace damka::cli {

struct ProbeOptions {
  std::string variant;
  std::string tables = "data/tables";
  std::string fen;
  bool json = false, pv = false;
  std::string rulebook;
  std::string moves;  // CLAUSE=N,...
  std::string game;   // a PDN game or move list
  // The Env every file of the command is opened through (cli::Context::env;
  // null: default_env()).  Set by the command, not by an option.
  Env* env = nullptr;
};

// What run_probe found: the position, its values and moves, and the verdict.
struct ProbeOutcome {
  const Rules* rules = nullptr;
  std::unique_ptr<Tablebase> tb;
  std::string note;  // shared_folder_note, or ""
  std::optional<GameRecord> game;
  PositionReport position;  // values, moves, PV
  // The moves that keep the value (like Fathom's tb_probe_root): known from
  // WDL tables alone, ranked by DTW or DTC where present; shown when the
  // full list (which needs DTW everywhere) is not known.
  std::vector<RootMove> root_moves;
  RootRanking ranking = RootRanking::None;
  ProbeStatus root_status = ProbeStatus::Ok;
  std::optional<Expected<StatuteVerdict>> verdict;  // with --rulebook
  StatuteCounters counters;                         // each clause's moves played
};

// Does the work of `damka probe`.  Sets the report's context (variant,
// folder, tables_folder); problems the tables meet are warned on stderr.
// An Error's code gives the exit code (Report::fail(const Error&): a bad
// argument or position 2, missing or bad tables 1).
Expected<ProbeOutcome> run_probe(const ProbeOptions& o, Report& report);

// Prints the outcome (text on stdout, or one JSON object) and returns the
// exit code: 0, or 1 when some value is not known or the statutes could not
// judge (said on stderr, and in the JSON).
int print_probe(const ProbeOptions& o, const ProbeOutcome& r, const Report& report);

}  // namespace damka::cli
