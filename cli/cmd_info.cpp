// damka info FILE|DIR: the header, value counts and compression of tables
// (info_tables.cpp reads them, info_print.cpp prints them); damka info
// --stats DIR: every material's wins, draws, losses and longest wins
// (info_stats.cpp).  This file is the parsing: the options CLI11 fills.
#include <filesystem>

#include "commands.hpp"
#include "common.hpp"
#include "info_command.hpp"
#include "info_stats.hpp"

namespace damka::cli {

void register_info(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand("info", "Show the header, value counts and compression of table files");
  cmd->footer(
      "A directory is searched recursively for *.wdl, *.dtw and *.dtc files.\n"
      "Positions per byte = table slots / file size.\n"
      "Value counts cover stored positions only: capture positions are derived from their captures and not\n"
      "stored. --stats counts every position of every material (capture positions valued through their\n"
      "captures) and finds the longest wins by DTW and DTC, with an example and its line.\n");
  auto o = std::make_shared<InfoOptions>();
  cmd->add_option("path", o->path, "A table file, or a directory of tables (--stats: a directory)")->required();
  cmd->add_flag("--json", o->json, "Print JSON on stdout");
  cmd->add_flag("--stats", o->stats,
                "Per material and per piece count: wins, draws and losses over every position, the longest wins "
                "by DTW and DTC with an example FEN and its line");
  cmd->add_option("-t,--threads", o->threads, "With --stats: threads (0 = all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  cmd->add_option("--memory", o->memory,
                  "With --stats: memory budget, e.g. 2G or 512M (default: 80% of this machine's memory, as "
                  "generate): the threads' buffers, then a block cache of the tables the capture positions read");
  cmd->add_option("--journal", o->journal,
                  "With --stats: record each material's statistics in FILE; a later run with the same FILE takes "
                  "them from there while the material's files are unchanged (a stopped run goes on where it "
                  "stopped)");
  cmd->callback([o, &rc, &context] {
    o->env = context.env;
    Report report("info", o->json);
    report.set("folder", o->path);
    if (!o->stats) {
      if (!o->journal.empty()) {
        rc = report.fail(2, "--journal goes with --stats");
        return;
      }
      rc = run_info(*o, report);
      return;
    }
    std::error_code dir_ec;
    if (!std::filesystem::is_directory(o->path, dir_ec)) {
      rc = report.fail(2, "--stats takes a tables folder (as given to `damka generate -o`, or a variant "
                          "subfolder), not " + o->path);
      return;
    }
    auto memory = memory_bytes(o->memory);
    if (!memory) {
      rc = report.fail(memory.error());
      return;
    }
    rc = info_stats(o->path, resolve_threads(o->threads), *memory, report, o->env, o->journal);
  });
}

}  // namespace damka::cli
