// damka verify, in three steps: the options CLI11 fills (cmd_verify.cpp),
// their checks and the variants to verify (verify_setup.cpp), the run
// (verify_run.cpp: verify_tables per variant) and its output
// (verify_print.cpp: each file problem, mismatch and table as it comes, each
// variant's summary and the report; text or JSON).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/env.hpp"
#include "damka/table_scan.hpp"
#include "damka/verify.hpp"

namespace damka::cli {

struct VerifyCommandOptions {
  std::string variant;
  std::string dir = "data/tables";
  int threads = 0;
  std::string memory, material, journal, stats_journal;
  bool json = false;
  // The Env every file of the command is opened through (cli::Context::env;
  // null: default_env()).  Set by the command, not by an option.
  Env* env = nullptr;
};

// The checked options: the library's options, the folder and the variants
// to verify (-v, or one per family folder).
struct VerifySetup {
  VerifyOptions vopt;
  TableFolderScan scan;
  std::vector<const Rules*> todo;
};

// Checks the options in the order the command always has and sets the
// report's context.  An Error's code gives the exit code (bad arguments 2,
// missing tables 1).
Expected<VerifySetup> setup_verify(const VerifyCommandOptions& o, Report& report);

// Verifies every variant set up, printing as it goes.  Returns the exit
// code: 0 all good, 3 mismatches, 1 bad or missing files.
int run_verify(const VerifyCommandOptions& o, const VerifySetup& s, const Report& report);

// The output (verify_print.cpp), fed by the run's callbacks.
class VerifyPrinter {
 public:
  VerifyPrinter(const VerifyCommandOptions& o, const Report& report) : o_(o), report_(report) {}
  void unreadable_folder(const std::string& folder);
  void variant_start(const Rules& rules, const TableFamilyFolder& family, const std::filesystem::path& root,
                     bool first);
  void file_problem(const VerifyFileProblem& f);
  void mismatch(const VerifyMismatch& x);
  void table_done(const VerifyReport& t);
  void stray_file(const std::filesystem::path& p);
  void bad_folder(const std::string& message);
  void variant_done(const Rules& rules, const TableFamilyFolder& family, const VerifyResult& result);
  // The exit code of what was printed: 1 bad or missing files, 3 mismatches, 0.
  int exit_code() const;
  // The report: JSON, or the list of bad files.
  void finish(const std::vector<const Rules*>& todo) const;

 private:
  std::uint64_t budget() const;  // the --memory budget's bytes
  const VerifyCommandOptions& o_;
  const Report& report_;
  Json unreadable_ = Json::array(), bad_files_ = Json::array(), variants_ = Json::array(),
       strays_ = Json::array(), files_ = Json::array();
  Json tables_ = Json::array(), mismatches_ = Json::array();  // the variant being verified
  std::uint64_t total_bad_ = 0, total_positions_ = 0;
  bool any_bad_ = false;
};

}  // namespace damka::cli
