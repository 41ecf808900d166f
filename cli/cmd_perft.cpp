// damka perft: leaf counts from a position, with the speed.  This file is the
// parsing: the options CLI11 fills; the variant and position are
// setup_perft (perft_setup.cpp), the count run_perft (perft_run.cpp), the
// output PerftPrinter (perft_print.cpp).
#include "commands.hpp"
#include "common.hpp"
#include "perft_command.hpp"

namespace damka::cli {

void register_perft(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("perft", "Count the move tree's leaves at each depth (checks the move generator)");
  auto o = std::make_shared<PerftCommandOptions>();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("-d,--depth", o->depth, "Deepest depth to count (plies)")->capture_default_str()->check(CLI::Range(1, 30));
  cmd->add_option("--fen", o->fen, "Start from this position (PDN FEN) instead of the initial one");
  cmd->add_flag("--paths", o->paths, "Count every capture path separately (default: identical moves merged)");
  cmd->add_flag("--json", o->json, "Print the counts as JSON on stdout");
  cmd->callback([o, &rc] {
    Report report("perft", o->json);
    auto setup = setup_perft(*o, report);
    if (!setup) {
      rc = report.fail(setup.error());
      return;
    }
    PerftPrinter printer(*o, *setup, report);
    printer.start();
    run_perft(*o, *setup, [&printer](const PerftDepth& d) { printer.depth(d); });
    printer.finish();
    rc = 0;
  });
}

}  // namespace damka::cli
