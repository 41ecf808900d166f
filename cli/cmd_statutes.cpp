// damka statutes: what a rulebook's draw statutes imply, clause by clause,
// judged against the tables (the work is in damka_statutes).  This file is
// the parsing: the options CLI11 fills; the checks are setup_statutes
// (statutes_setup.cpp), the work run_statutes (statutes_run.cpp), the
// output statutes_print.cpp.
#include "commands.hpp"
#include "common.hpp"
#include "statutes_command.hpp"

namespace damka::cli {

void register_statutes(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand("statutes", "What a rulebook's draw statutes imply, clause by clause, from the tables");
  auto o = std::make_shared<StatutesOptions>();
  cmd->add_option("-r,--rulebook", o->rulebook, "Rulebook name (data/rulebooks/NAME.json)")->capture_default_str();
  cmd->add_option("--tables", o->tables, "Directory of tables (a subfolder per variant family)")->capture_default_str();
  cmd->add_option("-v,--variant", o->variant,
                  "Variant whose tables to use (default: the one of the rulebook's variants with tables in the folder)");
  cmd->add_option("--svg", o->svg, "Write one SVG picture per clause into DIR/<variant>/<rulebook>/");
  cmd->add_option("--rulebooks-dir", o->rulebooks_dir, "Read rulebooks from this directory only");
  cmd->add_option("--max-pieces", o->max_pieces, "Consider materials up to this many pieces (tables present or not)")
      ->capture_default_str()->check(CLI::Range(2, 12));
  cmd->add_option("-m,--material", o->material,
                  "Judge this material only, e.g. 2K2Mv2K1M (the counts of the materials it converts into are "
                  "computed as it needs them)");
  cmd->add_option("--examples", o->examples, "Positions listed per clause that the clause turns into draws")
      ->capture_default_str()->check(CLI::Range(0, 1000));
  cmd->add_option("--memory", o->memory,
                  "Memory budget, e.g. 2G or 512M (default: 80% of this machine's memory, as generate)")
      ->check(non_empty_size());
  cmd->add_option("--temp-dir", o->temp_dir,
                  "Where the temporary folder of statute-aware counts goes (default: $TMPDIR, else /tmp)");
  cmd->add_option("--keep-dir", o->keep_dir,
                  "Keep the statute-aware counts and each material's figures in DIR (made if missing) instead of "
                  "temporary files: the same command run again goes on where a stopped run stopped");
  cmd->add_flag("--json", o->json, "Print the report as JSON");
  cmd->add_flag("--list", o->list, "List the rulebooks found (and where) and exit");
  cmd->footer("Each clause is judged by statute-aware values: a covered position stays won when the winner can end\n"
              "the clause's count (a capture or promotion changes the balance) still winning within the limit.\n"
              "Tables are read through bounded block caches and the counts kept in temporary files, within --memory.\n"
              "A 7-piece set takes hours: with --keep-dir DIR the counts and figures stay in DIR, and the same\n"
              "command run again reads them instead of computing them (while the tables are unchanged).\n"
              "JSON fields: docs/statutes-report.md.  Exit status 1 when no table a clause needs is present.\n"
              "Rulebooks are read from --rulebooks-dir, else $DAMKA_RULEBOOKS, else <prefix>/share/damka/rulebooks\n"
              "of an installed damka, else data/rulebooks of the source tree.");
  cmd->callback([o, &rc, &context] {
    o->env = context.env;
    Report report("statutes", o->json);
    if (o->list) {
      print_rulebook_list(*o, rulebook_search_path(exe_dir(), o->rulebooks_dir), report);
      rc = 0;
      return;
    }
    auto setup = setup_statutes(*o, report);
    if (!setup) {
      rc = report.fail(setup.error());
      return;
    }
    print_folder_note(*o, *setup);
    auto outcome = run_statutes(*o, *setup);
    if (!outcome) {
      rc = report.fail(outcome.error());
      return;
    }
    print_statutes(*o, *setup, *outcome, report);
    rc = 0;
  });
}

}  // namespace damka::cli
