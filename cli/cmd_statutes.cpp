// damka statutes: what a rulebook's draw statutes imply, clause by clause,
// judged against the tables (the work is in damka_statutes).
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "damka/statutes.hpp"

namespace damka::cli {

void register_statutes(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("statutes", "What a rulebook's draw statutes imply, clause by clause, from the tables");
  struct Opts {
    std::string rulebook = "russian-federation";
    std::string tables = "data/tables";
    std::string variant;
    std::string svg;
    std::string rulebooks_dir;
    int max_pieces = 7;
    int examples = 5;
    bool json = false, list = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-r,--rulebook", o->rulebook, "Rulebook name (data/rulebooks/NAME.json)")->capture_default_str();
  cmd->add_option("--tables", o->tables, "Directory of tables (a subfolder per variant family)")->capture_default_str();
  cmd->add_option("-v,--variant", o->variant, "Variant whose tables to use (default: the rulebook's first)");
  cmd->add_option("--svg", o->svg, "Write one SVG picture per clause into this directory");
  cmd->add_option("--rulebooks-dir", o->rulebooks_dir, "Read rulebooks from this directory only");
  cmd->add_option("--max-pieces", o->max_pieces, "Consider materials up to this many pieces (tables present or not)")
      ->capture_default_str()->check(CLI::Range(2, 12));
  cmd->add_option("--examples", o->examples, "Positions listed per clause that the clause turns into draws")
      ->capture_default_str()->check(CLI::Range(0, 1000));
  cmd->add_flag("--json", o->json, "Print the report as JSON");
  cmd->add_flag("--list", o->list, "List the rulebooks found and exit");
  cmd->callback([o, &rc] {
    const auto dirs = rulebook_search_path(exe_dir(), o->rulebooks_dir);
    if (o->list) {
      for (const auto& name : known_rulebooks(dirs)) {
        auto b = load_rulebook(name, dirs);
        std::cout << name << (b ? "  " + b->title : "  (invalid: " + b.message() + ")") << "\n";
      }
      rc = 0;
      return;
    }
    auto book = load_rulebook(o->rulebook, dirs);
    if (!book) {
      std::cerr << "damka statutes: " << book.message() << "\n";
      rc = 2;
      return;
    }
    const Rules* rules = lookup_variant("statutes", o->variant.empty() ? book->variants.front() : o->variant);
    if (!rules) {
      rc = 2;
      return;
    }
    if (!book->governs(*rules)) {
      std::cerr << "damka statutes: rulebook " << book->name << " is not for " << rules->name << "\n";
      rc = 2;
      return;
    }
    TableDirValues values(*rules, o->tables);
    ReportOptions opt;
    opt.max_pieces = o->max_pieces;
    opt.examples = o->examples;
    auto report = analyse(*book, *rules, values, opt);
    if (!report) {
      std::cerr << "damka statutes: " << report.message() << "\n";
      rc = 1;
      return;
    }
    if (report->largest_table == 0)
      std::cerr << "damka statutes: warning: no table of any covered material (" << values.describe()
                << "); build them with: damka generate -v " << rules->name << " -n 4 -o " << o->tables << "\n";
    if (o->json)
      std::cout << report_json(*report, *rules).dump(2) << "\n";
    else
      std::cout << report_text(*report, *rules);
    if (!o->svg.empty()) {
      auto files = write_svgs(*report, *rules, o->svg);
      if (!files) {
        std::cerr << "damka statutes: " << files.message() << "\n";
        rc = 1;
        return;
      }
      if (!o->json) std::cout << "\n" << files->size() << " SVG files written to " << o->svg << "\n";
    }
    rc = 0;
  });
}

}  // namespace damka::cli
