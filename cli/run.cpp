// The damka command line (run.hpp): the subcommands registered, the
// arguments parsed, the command's exit code returned.
#include "run.hpp"

#include <cstring>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "damka/notation.hpp"
#include "common.hpp"

namespace {

// The subcommand named on the command line (for JSON errors), or "damka".
std::string command_of(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) return sub->get_name();
  return "damka";
}

bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--json") == 0) return true;
  return false;
}

}  // namespace

namespace damka::cli {

int run(int argc, char** argv, const Context& context) {
  CLI::App app{"damka: endgame tablebases for draughts (Russian, Brazilian, Filipino, Mozambique, Thai, English)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "damka 0.1.0");
  app.footer("Every command takes --json: one JSON object on stdout, errors included (with a non-zero exit).");
  int rc = 0;
  damka::cli::register_perft(app, rc);
  damka::cli::register_info(app, rc, context);
  damka::cli::register_generate(app, rc, context);
  damka::cli::register_verify(app, rc, context);
  damka::cli::register_probe(app, rc, context);
  damka::cli::register_statutes(app, rc, context);
  damka::cli::register_serve(app, rc, context);
  damka::cli::register_annotate(app, rc, context);
  const bool json = wants_json(argc, argv);
  // An unknown command is named as such (CLI11 alone would say "A
  // subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->check_name(argv[1]);
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      const std::string why = "unknown command " + damka::quote_for_message(argv[1]) + " (commands: " + names +
                              "; see damka --help)";
      if (json) return damka::cli::Report("damka", true).fail(2, why);
      std::cerr << "damka: " << why << "\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are not errors; every argument error exits 2
    // (CLI11's own codes, 105, 106, 109, ..., are not the documented ones).
    if (e.get_exit_code() == 0) return app.exit(e);
    if (!json) {
      app.exit(e);
      return 2;
    }
    return damka::cli::Report(command_of(app), true).fail(2, e.what());
  } catch (const std::exception& e) {
    return damka::cli::Report(command_of(app), json).fail(1, std::string("error: ") + e.what());
  }
  return rc;
}

}  // namespace damka::cli
