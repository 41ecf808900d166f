// damka: build, check and probe endgame tablebases for draughts.
#include <iostream>
#include <string>

#include "commands.hpp"
#include "damka/notation.hpp"

int main(int argc, char** argv) {
  CLI::App app{"damka: endgame tablebases for draughts (Russian, Brazilian, Filipino, Mozambique, Thai, English)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "damka 0.1.0");
  int rc = 0;
  damka::cli::register_perft(app, rc);
  damka::cli::register_info(app, rc);
  damka::cli::register_generate(app, rc);
  damka::cli::register_verify(app, rc);
  damka::cli::register_probe(app, rc);
  damka::cli::register_statutes(app, rc);
  damka::cli::register_serve(app, rc);
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
      std::cerr << "damka: unknown command " << damka::quote_for_message(argv[1]) << " (commands: " << names
                << "; see damka --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "damka: error: " << e.what() << "\n";
    return 1;
  }
  return rc;
}
