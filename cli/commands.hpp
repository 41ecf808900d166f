// Subcommands of the `damka` tool.  Each register_* adds one subcommand to the
// app; the callback it installs stores the command's exit code in `rc`.
// The CLI is thin: parsing arguments and printing; the work is in libraries.
#pragma once

#include <CLI/CLI.hpp>

namespace damka::cli {

void register_perft(CLI::App& app, int& rc);
void register_info(CLI::App& app, int& rc);
void register_generate(CLI::App& app, int& rc);
void register_verify(CLI::App& app, int& rc);
void register_probe(CLI::App& app, int& rc);
void register_statutes(CLI::App& app, int& rc);
void register_serve(CLI::App& app, int& rc);
void register_annotate(CLI::App& app, int& rc);

}  // namespace damka::cli
