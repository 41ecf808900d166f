// damka statutes, in three steps: the options CLI11 fills
// (cmd_statutes.cpp), their checks into the rulebook, variant and report
// options (statutes_setup.cpp), the run (statutes_run.cpp: analyse, the SVG
// pictures) and the output (statutes_print.cpp: the list of rulebooks, the
// report as text or JSON).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/env.hpp"
#include "damka/statutes.hpp"

namespace damka::cli {

struct StatutesOptions {
  std::string rulebook = "russian-federation";
  std::string tables = "data/tables";
  std::string variant;
  std::string svg;
  std::string rulebooks_dir;
  std::string memory;
  std::string temp_dir, keep_dir;
  int max_pieces = 7;
  int examples = 5;
  std::string material;
  bool json = false, list = false;
  // The Env every file of the command is opened through (cli::Context::env;
  // null: default_env()).  Set by the command, not by an option.
  Env* env = nullptr;
};

// The checked options: the rulebook, the variant and its tables folder,
// how the tables are read and what the report covers.
struct StatutesSetup {
  Rulebook book;
  const Rules* rules = nullptr;
  std::filesystem::path root;  // the tables folder of the variant
  TableDirOptions values;
  ReportOptions report;
};

// Checks the options in the order the command always has and sets the
// report's context.  An Error's code gives the exit code (bad arguments 2).
Expected<StatutesSetup> setup_statutes(const StatutesOptions& o, Report& report);

// What the run found: the analysis and the SVG files written (with --svg).
struct StatutesOutcome {
  StatuteReport analysis;
  std::optional<std::vector<std::filesystem::path>> svg_files;
};

// Analyses the rulebook against the tables (a progress line on stderr) and
// writes the pictures.  Errors exit 1: nothing to judge, a table unreadable,
// a picture not written.
Expected<StatutesOutcome> run_statutes(const StatutesOptions& o, StatutesSetup& s);

// The output (statutes_print.cpp).
// --list: the rulebooks found on `dirs`, with their titles and paths.
void print_rulebook_list(const StatutesOptions& o, const std::vector<std::filesystem::path>& dirs,
                         const Report& report);
// The note on a shared tables folder, before the report (text only).
void print_folder_note(const StatutesOptions& o, const StatutesSetup& s);
void print_statutes(const StatutesOptions& o, const StatutesSetup& s, const StatutesOutcome& r, const Report& report);

}  // namespace damka::cli
