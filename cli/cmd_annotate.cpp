// damka annotate: every game of a PDN file annotated from the tables (the
// work is in annotate/: damka/annotate.hpp).
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "damka/annotate.hpp"
#include "damka/pdn.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"

namespace damka::cli {
namespace {

constexpr std::size_t kMaxFileBytes = std::size_t{256} << 20;

// The file's text, or an error (unreadable, too large).
Expected<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Error(path + " is a folder, not a PDN file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read " + path);
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) return Error(path + " is larger than 256 MiB (split it)");
  }
  if (in.bad()) return Error("cannot read " + path);
  return text;
}

}  // namespace

void register_annotate(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand(
      "annotate",
      "Annotate every game of a PDN file from the tables: the value of each position they cover, the moves that "
      "change the result (with the moves that kept it) and, with --rulebook, the move at which each draw "
      "statute ends the game. Annotated PDN on stdout (or --json). Games that cannot be read are reported on "
      "stderr and skipped (exit 1 when any was).");
  struct Opts {
    std::string file, variant, rulebook;
    std::string tables = "data/tables";
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("games", o->file, "The PDN file (PDN 3.0: tags, FEN setups, comments, variations)")->required();
  cmd->add_option("--tables", o->tables, "Directory of tables (as given to `damka generate -o`, or a variant subfolder)")
      ->capture_default_str();
  cmd->add_option("-v,--variant", o->variant,
                  "Variant (default: the one with tables in the folder that reads the games and, with --rulebook, "
                  "that the rulebook governs): " + variant_names());
  cmd->add_option("-r,--rulebook", o->rulebook,
                  "Also mark where each of this rulebook's draw statutes ends the game (e.g. russian-federation)");
  cmd->add_flag("--json", o->json, "Print the annotations as one JSON object on stdout");
  cmd->callback([o, &rc] {
    Report report("annotate", o->json);
    report.set("file", o->file);
    report.set("folder", o->tables);
    auto text = read_file(o->file);
    if (!text) {
      rc = report.fail(2, text.message());
      return;
    }
    const std::vector<PdnGame> games = read_pdn(*text);
    if (games.empty()) {
      rc = report.fail(1, "no games in " + o->file);
      return;
    }
    std::optional<Rulebook> book;
    if (!o->rulebook.empty()) {
      auto b = load_rulebook(o->rulebook, rulebook_search_path(exe_dir()));
      if (!b) {
        rc = report.fail(2, b.message());
        return;
      }
      book = std::move(*b);
      report.set("rulebook", book->name);
    }
    const Rules* rules = nullptr;
    if (!o->variant.empty()) {
      if (!(rules = lookup_variant(report, o->variant, rc))) return;
    } else {
      auto scan = scan_table_folder(o->tables);
      if (!scan) {
        rc = report.fail(1, "cannot open tables: " + scan.message());
        return;
      }
      // A variant fits when the rulebook (if any) governs it and some game reads in it.
      auto reads = [&](const Rules& r) {
        if (book && !book->governs(r)) return false;
        for (const PdnGame& g : games)
          if (game_from_pdn(r, g).ok()) return true;
        return false;
      };
      auto chosen = choose_variant("", *scan, reads,
                                   book ? "rulebook " + book->name + " with the games of " + o->file
                                        : "the games of " + o->file);
      if (!chosen) {
        rc = report.fail(2, chosen.message());
        return;
      }
      rules = *chosen;
    }
    if (book && !book->governs(*rules)) {
      rc = report.fail(2, "rulebook " + book->name + " is not for " + std::string(rules->name));
      return;
    }
    const std::filesystem::path root = tables_root(o->tables, *rules);
    report.set("variant", std::string(rules->name));
    report.set("folder", root.string());
    TablebaseOptions topt;
    auto opened = open_command_tables(report, *rules, root, topt);
    if (!opened) {
      rc = report.fail(opened.error());
      return;
    }
    const Tablebase& tb = **opened;
    AnnotateOptions aopt;
    aopt.rulebook = book ? &*book : nullptr;
    Json out_games = Json::array(), skipped = Json::array();
    std::size_t annotated = 0;
    int errors = 0;
    for (std::size_t i = 0; i < games.size(); ++i) {
      const AnnotatedGame a = annotate_game(tb, games[i], i + 1, aopt);
      if (!a.error.empty()) {
        if (o->json)
          skipped.push_back({{"index", a.index}, {"line", a.line}, {"error", a.error}});
        else
          report.warn(o->file + ": game " + std::to_string(a.index) + " (line " + std::to_string(a.line) +
                      ") skipped: " + a.error);
      } else {
        ++annotated;
        errors += a.errors();
      }
      if (o->json) out_games.push_back(annotated_json(a));
      else std::cout << annotated_pdn(a);
    }
    const std::size_t bad = games.size() - annotated;
    if (o->json) {
      Json j = report.object();
      j["max_pieces"] = tb.max_pieces();
      j["games_read"] = games.size();
      j["games_annotated"] = annotated;
      j["games_skipped"] = bad;
      j["errors_marked"] = errors;
      j["skipped"] = skipped;
      j["games"] = out_games;
      if (bad) {
        j["error"] = std::to_string(bad) + (bad == 1 ? " game" : " games") + " could not be read";
        j["exit_code"] = 1;
      }
      // Tags and moves are the file's bytes: bytes that are not UTF-8 become U+FFFD.
      std::cout << j.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
    } else {
      std::cerr << "damka annotate: " << annotated << " of " << games.size()
                << (games.size() == 1 ? " game" : " games") << " annotated" << (bad ? " (" + std::to_string(bad) + " skipped)" : "")
                << ", " << errors << (errors == 1 ? " error" : " errors") << " marked (" << rules->name
                << " tables up to " << tb.max_pieces() << " pieces in " << tb.directory().string() << ")\n";
    }
    rc = bad ? 1 : 0;
  });
}

}  // namespace damka::cli
