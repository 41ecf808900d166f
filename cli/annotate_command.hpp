// damka annotate, in three steps: the options CLI11 fills
// (cmd_annotate.cpp), reading the games and choosing the rulebook, variant
// and tables (annotate_setup.cpp), the run (annotate_run.cpp: every game
// annotated from the tables) and its output (annotate_print.cpp: annotated
// PDN, or one JSON object, and the summary).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/env.hpp"
#include "damka/annotate.hpp"
#include "damka/pdn.hpp"

namespace damka::cli {

struct AnnotateCommandOptions {
  std::string file, variant, rulebook;
  std::string tables = "data/tables";
  bool json = false;
  // The Env every file of the command is opened through (cli::Context::env;
  // null: default_env()).  Set by the command, not by an option.
  Env* env = nullptr;
};

// The games read, the rulebook, the variant and its open tables.
struct AnnotateSetup {
  std::vector<PdnGame> games;
  std::optional<Rulebook> book;
  const Rules* rules = nullptr;
  std::unique_ptr<Tablebase> tb;
};

// Reads the file and opens what it needs, in the order the command always
// has, setting the report's context.  An Error's code gives the exit code
// (an unreadable file or bad argument 2, no games or tables 1).
Expected<AnnotateSetup> setup_annotate(const AnnotateCommandOptions& o, Report& report);

// Annotates every game, printing each as it is done, then the summary.
// Returns the exit code (1 when a game was skipped).
int run_annotate(const AnnotateCommandOptions& o, const AnnotateSetup& s, const Report& report);

// The output (annotate_print.cpp).
class AnnotatePrinter {
 public:
  AnnotatePrinter(const AnnotateCommandOptions& o, const Report& report) : o_(o), report_(report) {}
  void game(const AnnotatedGame& a);
  void summary(const AnnotateSetup& s) const;
  std::size_t skipped() const { return read_ - annotated_; }

 private:
  const AnnotateCommandOptions& o_;
  const Report& report_;
  Json games_ = Json::array(), skipped_ = Json::array();
  std::size_t read_ = 0, annotated_ = 0;
  int errors_ = 0;
};

}  // namespace damka::cli
