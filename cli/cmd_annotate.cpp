// damka annotate: every game of a PDN file annotated from the tables (the
// work is in annotate/: damka/annotate.hpp).  This file is the parsing: the
// options CLI11 fills; the setup is setup_annotate (annotate_setup.cpp), the
// work run_annotate (annotate_run.cpp), the output annotate_print.cpp.
#include "annotate_command.hpp"
#include "commands.hpp"
#include "common.hpp"

namespace damka::cli {

void register_annotate(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand(
      "annotate",
      "Annotate every game of a PDN file from the tables: the value of each position they cover, the moves that "
      "change the result (with the moves that kept it) and, with --rulebook, the move at which each draw "
      "statute ends the game. Annotated PDN on stdout (or --json). Games that cannot be read are reported on "
      "stderr and skipped (exit 1 when any was).");
  auto o = std::make_shared<AnnotateCommandOptions>();
  cmd->add_option("games", o->file, "The PDN file (PDN 3.0: tags, FEN setups, comments, variations)")->required();
  cmd->add_option("--tables", o->tables, "Directory of tables (as given to `damka generate -o`, or a variant subfolder)")
      ->capture_default_str();
  cmd->add_option("-v,--variant", o->variant,
                  "Variant (default: the one with tables in the folder that reads the games and, with --rulebook, "
                  "that the rulebook governs): " + variant_names());
  cmd->add_option("-r,--rulebook", o->rulebook,
                  "Also mark where each of this rulebook's draw statutes ends the game (e.g. russian-federation)");
  cmd->add_flag("--json", o->json, "Print the annotations as one JSON object on stdout");
  cmd->callback([o, &rc, &context] {
    o->env = context.env;
    Report report("annotate", o->json);
    auto setup = setup_annotate(*o, report);
    if (!setup) {
      rc = report.fail(setup.error());
      return;
    }
    rc = run_annotate(*o, *setup, report);
  });
}

}  // namespace damka::cli
