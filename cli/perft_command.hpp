// damka perft, in three steps: the options CLI11 fills (cmd_perft.cpp), the
// variant and start position (perft_setup.cpp), the count per depth
// (perft_run.cpp) and its output (perft_print.cpp: a line per depth as it
// comes, or one JSON object at the end).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/movegen.hpp"
#include "damka/position.hpp"
#include "damka/rules.hpp"

namespace damka::cli {

struct PerftCommandOptions {
  std::string variant = "russian";
  int depth = 6;
  std::string fen;
  bool paths = false, json = false;
};

// The checked options: the variant, the start position and the move mode.
struct PerftSetup {
  const Rules* rules = nullptr;
  Position start;
  MoveMode mode = MoveMode::Merged;
};

// The count of one depth.
struct PerftDepth {
  int depth = 0;
  std::uint64_t leaves = 0;
  double seconds = 0;
};

// Chooses the variant and reads the FEN; sets the report's variant.  An
// Error's code gives the exit code (a bad variant or FEN: 2).
Expected<PerftSetup> setup_perft(const PerftCommandOptions& o, Report& report);

// Counts depths 1..o.depth, handing each to `on_depth` as it is done.
// Cost: the move tree to that depth.
void run_perft(const PerftCommandOptions& o, const PerftSetup& s, const std::function<void(const PerftDepth&)>& on_depth);

// The output: the title (text only), each depth (a line, or kept for the
// JSON) and the JSON object at the end.
class PerftPrinter {
 public:
  PerftPrinter(const PerftCommandOptions& o, const PerftSetup& s, const Report& report)
      : o_(o), s_(s), report_(report) {}
  void start() const;
  void depth(const PerftDepth& d);
  void finish() const;

 private:
  const PerftCommandOptions& o_;
  const PerftSetup& s_;
  const Report& report_;
  Json depths_ = Json::array();
};

}  // namespace damka::cli
