// damka generate, in three steps: the options CLI11 fills (cmd_generate.cpp),
// their checks into the library's GenerateOptions (generate_setup.cpp), the
// run (generate_run.cpp: a dry run's plan, or the build) and its output
// (generate_print.cpp: the plan, each table as it is done, the summary; text
// or JSON).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/cluster.hpp"
#include "damka/generate.hpp"

namespace damka::cli {

constexpr int kMaxGeneratePieces = 8;  // -n and -m

struct GenerateCommandOptions {
  std::string variant = "russian";
  int pieces = 4;
  std::string out = "data/tables";
  int threads = 0;
  std::string material;
  bool dry_run = false, json = false;
  std::string memory, metrics = "wdl,dtw,dtc";
  std::string compression = "fast";
  bool one_side = false;
  int ranks = 0;
  std::uint64_t split_above = 0;
  bool split_given = false;  // --split-above was given
};

// The checked options: what the library is asked to do, and where this
// process stands in an MPI job.
struct GenerateSetup {
  const Rules* rules = nullptr;
  std::string out;                   // the tables folder (-o, its variant subfolder taken off)
  std::unique_ptr<Cluster> cluster;  // the MPI job (null: one process)
  bool on_ranks = false;             // a job of several ranks
  bool speaks = true;                // rank 0 (or alone): prints the summary
  GenerateOptions opt;
};

// Checks the options in the order the command always has (the first
// problem is the one reported) and sets the report's context.  An Error's
// code gives the exit code (bad arguments 2, else 1).
Expected<GenerateSetup> setup_generate(const GenerateCommandOptions& o, Report& report);

// Runs the command set up: the dry run's plan, or the build, printed as it
// goes.  Returns the exit code.
int run_generate(const GenerateCommandOptions& o, GenerateSetup& s, const Report& report);

// The output (generate_print.cpp).
const char* action_name(TableReport::Action a);
// The dry run's plan: a table of materials with predicted memory, disk and
// time (and ranks), then the totals; or one JSON object.  `fits`:
// budget_refusal's (in --json, its error and exit code 1 join the document).
void print_plan(const GenerateCommandOptions& o, const GenerateSetup& s, const std::vector<TableReport>& plan,
                const Status& fits);

// The build's output: the header, a line (or a JSON entry) per table done,
// and the summary.  Counts what it is shown.
class BuildPrinter {
 public:
  BuildPrinter(const GenerateCommandOptions& o, const GenerateSetup& s) : o_(o), s_(s) {}
  void header() const;
  void table(const TableReport& r);
  // On several ranks, the summary counts every rank's tables (from the result).
  void recount(const std::vector<TableReport>& result, double wall_seconds);
  void summary(const std::vector<TableReport>& result, int threads) const;

 private:
  const GenerateCommandOptions& o_;
  const GenerateSetup& s_;
  nlohmann::json tables_ = nlohmann::json::array();  // keys sorted, as generate --json always wrote them
  double total_seconds_ = 0;
  std::uint64_t built_positions_ = 0, wdl_bytes_ = 0, all_positions_ = 0;
};

}  // namespace damka::cli
