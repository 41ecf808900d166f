// damka annotate, the setup: the games, the rulebook, the variant and the
// tables (annotate_command.hpp).
#include <fstream>

#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"
#include "annotate_command.hpp"

namespace damka::cli {
namespace {

constexpr std::size_t kMaxFileBytes = std::size_t{256} << 20;

Error bad_argument(std::string message) { return Error(std::move(message), ErrorCode::InvalidArgument); }

// The file's text, or an error (unreadable, too large: the argument names
// no file annotate can read).
Expected<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return bad_argument(path + " is a folder, not a PDN file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad_argument("cannot read " + path);
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) return bad_argument(path + " is larger than 256 MiB (split it)");
  }
  if (in.bad()) return bad_argument("cannot read " + path);
  return text;
}

// -v, else the variant with tables in the folder that the rulebook (if
// any) governs and that some game reads in.
Expected<const Rules*> annotate_variant(const AnnotateCommandOptions& o, const AnnotateSetup& s) {
  if (!o.variant.empty()) return variant_named(o.variant);
  auto scan = scan_table_folder(o.tables, env_or_default(o.env));
  if (!scan) return Error("cannot open tables: " + scan.message(), ErrorCode::NotFound);
  auto reads = [&](const Rules& r) {
    if (s.book && !s.book->governs(r)) return false;
    for (const PdnGame& g : s.games)
      if (game_from_pdn(r, g).ok()) return true;
    return false;
  };
  return choose_variant("", *scan, reads,
                        s.book ? "rulebook " + s.book->name + " with the games of " + o.file
                               : "the games of " + o.file);
}

}  // namespace

Expected<AnnotateSetup> setup_annotate(const AnnotateCommandOptions& o, Report& report) {
  report.set("file", o.file);
  report.set("folder", o.tables);
  AnnotateSetup s;
  auto text = read_file(o.file);
  if (!text) return text.error();
  s.games = read_pdn(*text);
  if (s.games.empty()) return Error("no games in " + o.file, ErrorCode::NotFound);
  if (!o.rulebook.empty()) {
    auto b = load_rulebook(o.rulebook, rulebook_search_path(exe_dir()), env_or_default(o.env));
    // the rulebook asked for cannot be used (an I/O error is one, exit 1)
    if (!b) return b.code() == ErrorCode::Io ? b.error() : bad_argument(b.message());
    s.book = std::move(*b);
    report.set("rulebook", s.book->name);
  }
  auto rules = annotate_variant(o, s);
  if (!rules) return rules.error();
  s.rules = *rules;
  if (s.book && !s.book->governs(*s.rules))
    return bad_argument("rulebook " + s.book->name + " is not for " + std::string(s.rules->name));
  const std::filesystem::path root = tables_root(o.tables, *s.rules);
  report.set("variant", std::string(s.rules->name));
  report.set("folder", root.string());
  TablebaseOptions topt;
  topt.env = o.env;
  auto opened = open_command_tables(report, *s.rules, root, topt);
  if (!opened) return opened.error();
  s.tb = std::move(*opened);
  return s;
}

}  // namespace damka::cli
