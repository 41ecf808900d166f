// Subcommands of the `damka` tool.  Each register_* adds one subcommand to the
// app; the callback it installs stores the command's exit code in `rc`.
// Every command that opens files opens them through `context.env`.
// The CLI is thin: parsing arguments and printing; the work is in libraries.
#pragma once

#include <CLI/CLI.hpp>

#include "run.hpp"

namespace damka::cli {

// A validator for size options (--memory): an empty text is refused (an
// option given must say something; leave it out for the default).
inline CLI::Validator non_empty_size() {
  return CLI::Validator(
      [](std::string& s) { return s.empty() ? std::string("an empty size (give e.g. 8G, or leave the option out)") : std::string(); },
      "SIZE");
}

// Warns (stderr) when more threads are asked for than the machine has cores:
// a build then runs slower, not faster.
void warn_threads_above_cores(const std::string& command, int threads);

void register_perft(CLI::App& app, int& rc);
void register_info(CLI::App& app, int& rc, const Context& context);
void register_generate(CLI::App& app, int& rc, const Context& context);
void register_verify(CLI::App& app, int& rc, const Context& context);
void register_probe(CLI::App& app, int& rc, const Context& context);
void register_statutes(CLI::App& app, int& rc, const Context& context);
void register_serve(CLI::App& app, int& rc, const Context& context);
void register_annotate(CLI::App& app, int& rc, const Context& context);

}  // namespace damka::cli
