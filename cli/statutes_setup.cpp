// damka statutes, the checks: the rulebook, the variant, the tables folder
// and the report's options (statutes_command.hpp).
#include "damka/table_scan.hpp"
#include "statutes_command.hpp"

namespace damka::cli {
namespace {

Error bad_argument(std::string message) { return Error(std::move(message), ErrorCode::InvalidArgument); }

// -v, else the rulebook's variant with tables in the folder; with none
// there, the book's first (or, for a book of several variants, ask).
Expected<const Rules*> statutes_variant(const StatutesOptions& o, const Rulebook& book) {
  if (!o.variant.empty()) return variant_named(o.variant);
  auto scan = scan_table_folder(o.tables, env_or_default(o.env));
  if (scan && !scan->variants().empty())
    return choose_variant("", *scan, [&](const Rules& r) { return book.governs(r); }, "rulebook " + book.name);
  if (book.variants.size() > 1) {
    // No tables to choose by, and the book is for several variants: ask.
    std::string names;
    for (const std::string& v : book.variants) names += (names.empty() ? "" : ", ") + v;
    return bad_argument("rulebook " + book.name + " is for several variants (" + names + ") and " + o.tables +
                        " holds tables of none of them; name one with -v");
  }
  return &rules_of(*parse_variant(book.variants.front()));
}

}  // namespace

Expected<StatutesSetup> setup_statutes(const StatutesOptions& o, Report& report) {
  report.set("rulebook", o.rulebook);
  report.set("folder", o.tables);
  StatutesSetup s;
  {
    auto book = load_rulebook(o.rulebook, rulebook_search_path(exe_dir(), o.rulebooks_dir), env_or_default(o.env));
    // the rulebook asked for cannot be used (an I/O error is one, exit 1)
    if (!book) return book.code() == ErrorCode::Io ? book.error() : bad_argument(book.message());
    s.book = std::move(*book);
  }
  auto rules = statutes_variant(o, s.book);
  if (!rules) return rules.error();
  s.rules = *rules;
  report.set("variant", std::string(s.rules->name));
  if (!s.book.governs(*s.rules))
    return bad_argument("rulebook " + s.book.name + " is not for " + std::string(s.rules->name));
  s.root = tables_root(o.tables, *s.rules);
  report.set("folder", s.root.string());
  auto memory = memory_bytes(o.memory);
  if (!memory) return memory.error();
  s.values.memory_budget = *memory;
  s.values.env = o.env;
  s.values.work_dir = o.temp_dir;
  s.values.keep_dir = o.keep_dir;
  if (!o.keep_dir.empty()) {
    report.set("keep_dir", o.keep_dir);
    if (auto info = env_or_default(o.env).stat(o.keep_dir); info && !info->directory)
      return bad_argument("--keep-dir: " + o.keep_dir + " is not a folder");
  }
  if (s.values.work_dir.empty()) {
    std::error_code ec;
    s.values.work_dir = std::filesystem::temp_directory_path(ec);
    if (ec) s.values.work_dir = s.root.parent_path();
  }
  s.report.max_pieces = o.max_pieces;
  if (!o.material.empty()) {
    auto m = Material::parse(o.material);
    if (!m || !m->is_valid())
      return bad_argument("-m: not a material: '" + o.material + "' (examples: 3Kv1K, 2K2Mv2K1M)");
    s.report.only = m->canonical();
    if (s.report.only->white() == 0 || s.report.only->black() == 0 || s.report.only->pieces() > o.max_pieces)
      return bad_argument("-m " + o.material + ": a material with pieces on both sides and at most --max-pieces (" +
                          std::to_string(o.max_pieces) + ") pieces");
  }
  s.report.examples = o.examples;
  return s;
}

}  // namespace damka::cli
