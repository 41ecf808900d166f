// damka statutes: what a rulebook's draw statutes imply, clause by clause,
// judged against the tables (the work is in damka_statutes).
#include <filesystem>
#include <iostream>
#include <optional>

#include "commands.hpp"
#include "common.hpp"
#include "progress.hpp"
#include "damka/engine.hpp"
#include "damka/generate.hpp"
#include "damka/statute_json.hpp"
#include "damka/statutes.hpp"
#include "damka/table_scan.hpp"

namespace damka::cli {

void register_statutes(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("statutes", "What a rulebook's draw statutes imply, clause by clause, from the tables");
  struct Opts {
    std::string rulebook = "russian-federation";
    std::string tables = "data/tables";
    std::string variant;
    std::string svg;
    std::string rulebooks_dir;
    std::string memory;
    std::string temp_dir;
    int max_pieces = 7;
    int examples = 5;
    std::string material;
    bool json = false, list = false;
  };
  auto o = std::make_shared<Opts>();
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
  cmd->add_flag("--json", o->json, "Print the report as JSON");
  cmd->add_flag("--list", o->list, "List the rulebooks found (and where) and exit");
  cmd->footer("Each clause is judged by statute-aware values: a covered position stays won when the winner can end\n"
              "the clause's count (a capture or promotion changes the balance) still winning within the limit.\n"
              "Tables are read through bounded block caches and the counts kept in temporary files, within --memory.\n"
              "JSON fields: docs/statutes-report.md.  Exit status 1 when no table a clause needs is present.\n"
              "Rulebooks are read from --rulebooks-dir, else $DAMKA_RULEBOOKS, else <prefix>/share/damka/rulebooks\n"
              "of an installed damka, else data/rulebooks of the source tree.");
  cmd->callback([o, &rc] {
    Report report("statutes", o->json);
    const auto dirs = rulebook_search_path(exe_dir(), o->rulebooks_dir);
    if (o->list) {
      Json books = Json::array();
      for (const auto& name : known_rulebooks(dirs)) {
        auto b = load_rulebook(name, dirs);
        if (o->json)
          books.push_back(b ? Json{{"name", name}, {"title", b->title}, {"path", b->path.string()}}
                            : Json{{"name", name}, {"error", b.message()}});
        else
          std::cout << name << (b ? "  " + b->title + "  (" + b->path.string() + ")" : "  (invalid: " + b.message() + ")")
                    << "\n";
      }
      if (o->json) {
        Json j = report.object();
        Json searched = Json::array();
        for (const auto& d : dirs) searched.push_back(d.string());
        j["searched"] = searched;
        j["rulebooks"] = books;
        std::cout << j.dump(2) << "\n";
      }
      rc = 0;
      return;
    }
    report.set("rulebook", o->rulebook);
    report.set("folder", o->tables);
    auto book = load_rulebook(o->rulebook, dirs);
    if (!book) {
      rc = report.fail(2, book.message());
      return;
    }
    const Rules* rules = nullptr;
    if (!o->variant.empty()) {
      if (!(rules = lookup_variant(report, o->variant, rc))) return;
    } else {
      // The rulebook's variant with tables in the folder; with none there, the book's first.
      auto scan = scan_table_folder(o->tables);
      if (scan && !scan->variants().empty()) {
        auto chosen = choose_variant("", *scan, [&](const Rules& r) { return book->governs(r); },
                                     "rulebook " + book->name);
        if (!chosen) {
          rc = report.fail(2, chosen.message());
          return;
        }
        rules = *chosen;
      } else if (book->variants.size() > 1) {
        // No tables to choose by, and the book is for several variants: ask.
        std::string names;
        for (const std::string& v : book->variants) names += (names.empty() ? "" : ", ") + v;
        rc = report.fail(2, "rulebook " + book->name + " is for several variants (" + names + ") and " + o->tables +
                                " holds tables of none of them; name one with -v");
        return;
      } else {
        rules = &rules_of(*parse_variant(book->variants.front()));
      }
    }
    report.set("variant", std::string(rules->name));
    if (!book->governs(*rules)) {
      rc = report.fail(2, "rulebook " + book->name + " is not for " + std::string(rules->name));
      return;
    }
    const std::filesystem::path root = tables_root(o->tables, *rules);
    report.set("folder", root.string());
    if (const std::string note = shared_folder_note(*rules, root); !note.empty() && !o->json)
      std::cout << note << "\n";
    TableDirOptions vopt;
    if (!memory_option(report, o->memory, vopt.memory_budget, rc)) return;
    vopt.work_dir = o->temp_dir;
    if (vopt.work_dir.empty()) {
      std::error_code ec;
      vopt.work_dir = std::filesystem::temp_directory_path(ec);
      if (ec) vopt.work_dir = root.parent_path();
    }
    TableDirValues values(*rules, root, vopt);
    ReportOptions opt;
    opt.max_pieces = o->max_pieces;
    if (!o->material.empty()) {
      auto m = Material::parse(o->material);
      if (!m || !m->is_valid()) {
        rc = report.fail(2, "-m: not a material: '" + o->material + "' (examples: 3Kv1K, 2K2Mv2K1M)");
        return;
      }
      opt.only = m->canonical();
      if (opt.only->white() == 0 || opt.only->black() == 0 || opt.only->pieces() > o->max_pieces) {
        rc = report.fail(2, "-m " + o->material + ": a material with pieces on both sides and at most --max-pieces (" +
                                std::to_string(o->max_pieces) + ") pieces");
        return;
      }
    }
    opt.examples = o->examples;
    ProgressBar bar;
    opt.progress = [&](const Material& m, std::uint64_t done, std::uint64_t total, double elapsed) {
      bar.update_run(double(done), double(total), elapsed, "positions", "judging " + m.name());
    };
    auto analysis = analyse(*book, *rules, values, opt);
    bar.finish();
    if (!analysis) {
      rc = report.fail(1, analysis.message());
      return;
    }
    if (analysis->largest_table == 0) {
      rc = report.fail(1, "nothing to judge: no table of any material a clause of " + book->name + " covers (" +
                              values.describe() + "); build them with: damka generate -v " +
                              std::string(rules->name) + " -n 4 -o " + root.string());
      return;
    }
    std::optional<Expected<std::vector<std::filesystem::path>>> files;
    if (!o->svg.empty()) {
      files = write_svgs(*analysis, *rules, o->svg);
      if (!*files) {
        rc = report.fail(1, files->message());
        return;
      }
    }
    if (o->json) {
      Json j = report.object();
      const Json body = report_json(*analysis, *rules);
      for (auto it = body.begin(); it != body.end(); ++it) j[it.key()] = it.value();
      if (files) {
        Json svgs = Json::array();
        for (const auto& f : **files) svgs.push_back(f.string());
        j["svg_files"] = svgs;
      }
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << report_text(*analysis, *rules);
      if (files) std::cout << "\n" << (*files)->size() << " SVG files written to " << o->svg << "\n";
    }
    rc = 0;
  });
}

}  // namespace damka::cli
