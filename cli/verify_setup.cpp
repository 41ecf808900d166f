// damka verify, the checks: the options, the folder and the variants to
// verify (verify_command.hpp).
#include <iostream>

#include "commands.hpp"  // warn_threads_above_cores
#include "damka/results_journal.hpp"
#include "damka/table_paths.hpp"
#include "thread_check.hpp"
#include "verify_command.hpp"

namespace damka::cli {
namespace {

Error bad_argument(std::string message) { return Error(std::move(message), ErrorCode::InvalidArgument); }

// -v names a variant without tables here: its stray temporary files are
// named even so, and the error says what the folder holds.
Error no_tables_of(const Rules& r, const TableFolderScan& scan, Report& report, Env& env) {
  report.set("variant", std::string(r.name));
  // Temporary files a killed `damka generate` left are named even so.
  Json strays = Json::array();
  for (const auto& p : temp_table_files(table_dir(scan.root, r), env)) {
    std::cerr << "damka verify: " << temp_file_words(p) << "\n";
    strays.push_back(p.string());
  }
  if (!strays.empty()) report.set("stray_files", strays);
  return Error("no " + std::string(r.name) + " tables in " + scan.root.string() + " (found: " + scan.describe() +
                   "; build them with `damka generate -v " + std::string(r.name) + " -o " + scan.root.string() + "`)",
               ErrorCode::NotFound);
}

// A journal option (--journal, --stats-journal): when given, the file is
// opened as a journal of `kind` now (created if absent) and set in `target`;
// a file that is not one is refused (InvalidArgument, or Io if unreadable).
Status use_journal(const char* option, const std::string& path, const char* kind, const VerifyCommandOptions& o,
                   std::filesystem::path& target, Report& report) {
  if (path.empty()) return Status::ok_status();
  if (Status j = ResultsJournal::open(path, kind, env_or_default(o.env)).status(); !j.ok())
    return Error(std::string(option) + ": " + j.message(),
                 j.code() == ErrorCode::Io ? ErrorCode::Io : ErrorCode::InvalidArgument);
  target = path;
  std::string key = std::string(option).substr(2);  // "--stats-journal" -> "stats_journal"
  for (char& c : key)
    if (c == '-') c = '_';
  report.set(key, path);
  return Status::ok_status();
}

}  // namespace

Expected<VerifySetup> setup_verify(const VerifyCommandOptions& o, Report& report) {
  report.set("folder", o.dir);
  VerifySetup s;
  auto memory = memory_bytes(o.memory);
  if (!memory) return memory.error();
  s.vopt.memory_budget = *memory;
  s.vopt.env = o.env;
  if (!o.material.empty()) {
    auto m = Material::parse(o.material);
    if (!m || !m->is_valid() || m->white() == 0 || m->black() == 0)
      return bad_argument("--material: " + (m ? "no table holds " + o.material : m.message()));
    if (o.variant.empty()) return bad_argument("--material needs -v VARIANT");
    s.vopt.only = m->canonical();
  }
  // Both journals are checked now, before any table: a file that is not a
  // journal of its kind is never overwritten (`damka info --stats --journal`
  // reads and writes the stats kind).
  if (Status j = use_journal("--journal", o.journal, "verify", o, s.vopt.journal, report); !j.ok()) return j.error();
  if (Status j = use_journal("--stats-journal", o.stats_journal, "stats", o, s.vopt.stats_journal, report); !j.ok())
    return j.error();
  auto scan = scan_table_folder(o.dir, env_or_default(o.env));
  if (!scan) return Error(scan.message(), scan.code() == ErrorCode::Io ? ErrorCode::Io : ErrorCode::NotFound);
  s.scan = std::move(*scan);
  report.set("folder", s.scan.root.string());
  // The rules to verify: -v, or one per family folder (its headers' first variant).
  if (!o.variant.empty()) {
    auto r = variant_named(o.variant);
    if (!r) return r.error();
    if (!s.scan.family_of(**r)) return no_tables_of(**r, s.scan, report, env_or_default(o.env));
    s.todo.push_back(*r);
  } else {
    for (const auto& f : s.scan.families)
      s.todo.push_back(&rules_of(f.variants.empty() ? *parse_variant(f.family) : f.variants.front()));
  }
  if (s.todo.empty())
    return Error(s.scan.unreadable.empty()
                     ? "no tables in " + s.scan.root.string() + " (build them with `damka generate -v VARIANT -o " +
                           s.scan.root.string() + "`)"
                     : "no readable tables in " + s.scan.root.string() + " (" + s.scan.describe() + ")",
                 ErrorCode::NotFound);
  s.vopt.threads = resolve_threads(o.threads);
  warn_threads_above_cores("verify", s.vopt.threads);
  if (Status t = check_threads(s.vopt.threads); !t.ok()) return Error(t.message(), ErrorCode::Other);  // exit 1
  return s;
}

}  // namespace damka::cli
