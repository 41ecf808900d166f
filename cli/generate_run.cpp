// damka generate, the run: the dry run's plan, or the build with its
// progress and per-table output, on one process or as one rank of an MPI
// job (generate_command.hpp).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <utility>

#include "generate_command.hpp"
#include "generate_ranks.hpp"
#include "progress.hpp"

namespace damka::cli {
namespace {

int dry_run(const GenerateCommandOptions& o, const GenerateSetup& s, const Report& report) {
  if (!s.speaks) return 0;  // one plan, printed by rank 0
  auto plan = plan_generation(*s.rules, s.opt);
  if (!plan) return report.fail(1, plan.message());
  // The plan is shown in full; where the run it predicts would refuse to
  // start, so does the dry run (in --json, the plan's document says why).
  const Status fits = budget_refusal(*plan, s.opt);
  print_plan(o, s, *plan, fits);
  if (!fits.ok()) return o.json ? 1 : report.fail(1, fits.message());
  return 0;
}

}  // namespace

int run_generate(const GenerateCommandOptions& o, GenerateSetup& s, const Report& report) {
  if (o.dry_run) return dry_run(o, s, report);
  if (const std::string note = shared_folder_note(*s.rules, s.out); !note.empty() && !o.json && s.speaks)
    std::printf("%s\n", note.c_str());
  ProgressBar bar;
  GenerateCallbacks cb;
  cb.notice = [&](const std::string& text) {
    bar.finish();
    std::cerr << "damka generate: " << text << "\n";
  };
  if (s.speaks) cb.progress = [&](const Progress& p) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", p.total ? 100.0 * double(p.done) / double(p.total) : 100.0);
    std::string detail = "table " + std::to_string(p.table_number) + "/" + std::to_string(p.tables_total) + " " +
                         p.material.name() + " " + pct;
    if (p.load_total > 0) {
      std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * double(p.load_done) / double(p.load_total));
      detail += ", loading " + p.loading.name() + " " + pct;
    }
    bar.update_run(static_cast<double>(p.overall_done), static_cast<double>(p.overall_total), p.elapsed, "positions",
                   detail, p.load_total > 0);
  };
  BuildPrinter printer(o, s);
  // On several ranks, each prints the tables it builds as it goes; the
  // JSON (rank 0) is made from every rank's reports at the end.  The header
  // comes with the first table (a run refused before it builds prints none).
  bool headed = false;
  if (!(s.on_ranks && o.json)) cb.table_done = [&](const TableReport& r) {
    bar.finish();
    if (!std::exchange(headed, true)) printer.header();
    printer.table(r);
  };
  const auto wall0 = std::chrono::steady_clock::now();
  auto result = generate(*s.rules, s.opt, cb);
  bar.finish();
  if (!result) {
    if (s.on_ranks) {  // the other ranks may wait for this one: end the job
      const std::string prefix = result.message().rfind("rank ", 0) == 0 ? "" : rank_prefix(s.cluster.get());
      report.fail(1, prefix + result.message());
      std::fflush(stdout);
      s.cluster->abort(1);
    }
    return report.fail(1, result.message());
  }
  int threads = s.opt.threads;
  if (s.on_ranks) {
    if (!s.speaks) return 0;
    printer.recount(*result, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    threads *= s.cluster->size();  // the summary's "per thread": every rank's threads
  }
  printer.summary(*result, threads);
  return 0;
}

}  // namespace damka::cli
