// damka probe: the value of a position and of each of its moves, from
// tables.  This file is the parsing: the options CLI11 fills; the work is
// run_probe (probe_run.cpp), the output print_probe (probe_print.cpp).
#include "commands.hpp"
#include "common.hpp"
#include "probe_command.hpp"

namespace damka::cli {

void register_probe(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand("probe", "Look a position up in the tables: its WDL, DTW and DTC, and every move's value");
  auto o = std::make_shared<ProbeOptions>();
  cmd->add_option("-v,--variant", o->variant,
                  "Variant (default: the one with tables in the folder that reads the FEN): " + variant_names());
  cmd->add_option("--tables", o->tables, "Directory of tables (as given to `damka generate -o`, or a variant subfolder)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the result as JSON on stdout");
  cmd->add_flag("--pv", o->pv, "Also print the principal variation (the best line to the end of the game)");
  cmd->add_option("-r,--rulebook", o->rulebook,
                  "Also judge the position under this rulebook's draw statutes (e.g. russian-federation)");
  cmd->add_option("--moves", o->moves,
                  "With --rulebook: moves of the stronger side already played under each clause's count, e.g. "
                  "2.1.9.1.5=12,2.1.9.1.8=3 (a clause number, or an entry id such as 2.1.9.1.5/4-5; clauses not "
                  "named: 0)");
  cmd->add_option("--game", o->game,
                  "With --rulebook: a PDN game or move list (file); the position is where it ends and each clause's "
                  "count is counted from the game (--moves overrides a clause's count)");
  cmd->add_option("fen", o->fen, "The position (PDN FEN), e.g. W:WKa1,Kc3:BKh8 (optional with --game)");
  cmd->callback([o, &rc, &context] {
    o->env = context.env;
    Report report("probe", o->json);
    auto outcome = run_probe(*o, report);
    if (!outcome) {
      rc = report.fail(outcome.error());
      return;
    }
    rc = print_probe(*o, *outcome, report);
  });
}

}  // namespace damka::cli
