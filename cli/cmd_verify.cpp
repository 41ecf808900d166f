// damka verify: re-check every stored value by a one-ply search, for every
// variant whose tables the folder holds (or the one named with -v).  This
// file is the parsing: the options CLI11 fills; the checks are setup_verify
// (verify_setup.cpp), the work run_verify (verify_run.cpp), the output
// verify_print.cpp.
#include "commands.hpp"
#include "common.hpp"
#include "verify_command.hpp"

namespace damka::cli {

void register_verify(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand("verify", "Re-check every stored value of every table in DIR by a one-ply search");
  cmd->footer(
      "DIR is the folder given to `damka generate -o` (holding russian/, english/, ...) or one of its variant\n"
      "subfolders.  Without -v every variant found in the tables' headers is verified.  Every bad file is\n"
      "listed once (missing, unreadable, damaged, built for other rules, or holding another table than its name\n"
      "says) and the tables that read it are \"not verifiable\"; names that are no table are listed as stray.\n"
      "Tables are checked one at a time, level by level, within --memory.  A whole 7-piece set takes hours:\n"
      "with --journal FILE the same command, run again, skips the tables already found good.  Exit: 0 all\n"
      "good, 3 mismatches, 1 bad or missing files.");
  auto o = std::make_shared<VerifyCommandOptions>();
  cmd->add_option("dir", o->dir, "Directory of tables (as given to damka generate --out)")->capture_default_str();
  cmd->add_option("-v,--variant", o->variant, "Only this variant (default: every variant found): " + variant_names());
  cmd->add_option("-t,--threads", o->threads, "Threads (0 = all cores)")->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("--memory", o->memory,
                  "Memory budget, e.g. 2G or 512M (default: 80% of this machine's memory, as generate)")
      ->check(non_empty_size());
  cmd->add_option("-m,--material", o->material, "Verify this material only (e.g. 3Kv1K; needs -v)");
  cmd->add_option("--journal", o->journal,
                  "Record each table found good in FILE; a later run with the same FILE skips those whose files "
                  "have not changed (a stopped run goes on where it stopped)");
  cmd->add_option("--stats-journal", o->stats_journal,
                  "Also record each table found good's statistics in FILE, the journal of `damka info --stats "
                  "--journal FILE` (counted from the values verify found true): that command then counts only the "
                  "tables not recorded");
  cmd->add_flag("--json", o->json, "Print the report as JSON on stdout");
  cmd->callback([o, &rc, &context] {
    o->env = context.env;
    Report report("verify", o->json);
    auto setup = setup_verify(*o, report);
    if (!setup) {
      rc = report.fail(setup.error());
      return;
    }
    rc = run_verify(*o, *setup, report);
  });
}

}  // namespace damka::cli
