// damka verify, the run: verify_tables for each variant set up, its
// callbacks feeding the printer (verify_command.hpp).
#include <cstdio>
#include <iostream>

#include "damka/table_paths.hpp"
#include "progress.hpp"
#include "verify_command.hpp"

namespace damka::cli {

int run_verify(const VerifyCommandOptions& o, const VerifySetup& s, const Report& report) {
  VerifyPrinter printer(o, report);
  // A family folder that cannot be read: named, the others verified, exit 1.
  for (const auto& u : s.scan.unreadable) printer.unreadable_folder(u);
  for (const Rules* r : s.todo) {
    const TableFamilyFolder& fam = *s.scan.family_of(*r);
    printer.variant_start(*r, fam, s.scan.root, r == s.todo.front());
    ProgressBar bar;
    VerifyCallbacks cb;
    cb.progress = [&](const VerifyProgress& p) {
      char pct[16];
      std::snprintf(pct, sizeof pct, "%.0f%%", p.total ? 100.0 * double(p.done) / double(p.total) : 100.0);
      std::string what = "verify " + std::string(r->name) + " table " + std::to_string(p.table_number) + "/" +
                         std::to_string(p.tables_total) + " " + p.material.name() + " " + pct;
      if (p.load_total) {
        char lp[16];
        std::snprintf(lp, sizeof lp, "%.0f%%", 100.0 * double(p.load_done) / double(p.load_total));
        what += ", loading " + p.loading.name() + " " + lp;
      }
      bar.update_run(double(p.overall_done), double(p.overall_total), p.elapsed, "positions", what, p.load_total > 0);
    };
    cb.file_problem = [&](const VerifyFileProblem& f) { printer.file_problem(f); };
    cb.mismatch = [&](const VerifyMismatch& x) {
      bar.finish();
      printer.mismatch(x);
    };
    cb.table_done = [&](const VerifyReport& t) {
      bar.finish();
      printer.table_done(t);
    };
    auto result = verify_tables(*r, s.scan.root, s.vopt, cb);
    bar.finish();
    // Temporary files a killed `damka generate` left: named, not fatal.
    for (const auto& p : temp_table_files(table_dir(s.scan.root, *r), env_or_default(o.env))) printer.stray_file(p);
    if (!result) {
      printer.bad_folder(result.message());
      continue;
    }
    if (!result->journal_error.empty())
      std::cerr << "damka verify: " << result->journal_error
                << " (the checks went on; the tables after it are not recorded)\n";
    if (!result->stats_journal_error.empty())
      std::cerr << "damka verify: --stats-journal: " << result->stats_journal_error
                << " (the checks went on; the statistics of the tables after it are not recorded)\n";
    printer.variant_done(*r, fam, *result);
  }
  const int rc = printer.exit_code();
  printer.finish(s.todo);
  return rc;
}

}  // namespace damka::cli
