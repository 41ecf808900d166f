// damka statutes, the run: the analysis and the pictures (statutes_command.hpp).
#include "progress.hpp"
#include "statutes_command.hpp"

namespace damka::cli {

Expected<StatutesOutcome> run_statutes(const StatutesOptions& o, StatutesSetup& s) {
  TableDirValues values(*s.rules, s.root, s.values);
  ProgressBar bar;
  s.report.progress = [&](const Material& m, std::uint64_t done, std::uint64_t total, double elapsed) {
    bar.update_run(double(done), double(total), elapsed, "positions", "judging " + m.name());
  };
  auto analysis = analyse(s.book, *s.rules, values, s.report);
  bar.finish();
  s.report.progress = nullptr;  // it refers to this bar
  if (!analysis) return Error(analysis.message(), ErrorCode::Other);  // exit 1
  if (analysis->largest_table == 0)
    return Error("nothing to judge: no table of any material a clause of " + s.book.name + " covers (" +
                     values.describe() + "); build them with: damka generate -v " + std::string(s.rules->name) +
                     " -n 4 -o " + s.root.string(),
                 ErrorCode::NotFound);
  StatutesOutcome r{std::move(*analysis), std::nullopt};
  if (!o.svg.empty()) {
    auto files = write_svgs(r.analysis, *s.rules, o.svg, env_or_default(s.values.env));
    if (!files) return Error(files.message(), ErrorCode::Io);
    r.svg_files = std::move(*files);
  }
  return r;
}

}  // namespace damka::cli
