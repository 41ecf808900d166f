// `damka verify` (see verify.hpp): the folder's files checked by name and
// header (verify_files.hpp), then every table that can be checked, one at a
// time, level by level (verify_material.hpp).
#include "damka/verify.hpp"

#include <atomic>
#include <chrono>

#include <nlohmann/json.hpp>

#include "damka/generate.hpp"
#include "damka/results_journal.hpp"
#include "damka/stats_tally.hpp"
#include "damka/slots.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"
#include "damka/value.hpp"
#include "damka/words.hpp"
#include "load_resident.hpp"
#include "resident_tables.hpp"
#include "verify_files.hpp"
#include "verify_material.hpp"

namespace damka {
namespace {

// The rules' table folder under dir, or why there is none.
Expected<std::filesystem::path> family_folder(const Rules& rules, const std::filesystem::path& dir, Env& env) {
  const auto family = table_dir(tables_root(dir, rules, env), rules);
  if (auto info = env.stat(family); !info || !info->directory) {
    if (!info && info.code() != ErrorCode::NotFound) return Error(family.string() + ": " + info.message(), ErrorCode::Io);
    return Error(family.string() + ": no such directory (generate tables first: damka generate -v " +
                     std::string(rules.name) + " -o " + dir.string() + ")",
                 ErrorCode::NotFound);
  }
  return family;
}

}  // namespace

const char* file_problem_name(VerifyFileProblem::Kind kind) {
  switch (kind) {
    case VerifyFileProblem::Kind::Missing: return "missing";
    case VerifyFileProblem::Kind::Bad: return "bad";
    case VerifyFileProblem::Kind::Stray: return "stray";
  }
  return "bad";
}

std::string describe(std::uint16_t code) { return describe_value(Value::decode(code), Metric::DTW); }

Expected<std::vector<Material>> tables_in(const Rules& rules, const std::filesystem::path& dir) {
  auto family = family_folder(rules, dir, default_env());
  if (!family) return family.error();
  auto fc = verify_detail::check_folder(rules, *family, default_env());
  if (!fc) return fc.error();
  return fc->order;
}

Expected<VerifyResult> verify_tables(const Rules& rules, const std::filesystem::path& dir, const VerifyOptions& opts,
                                     const VerifyCallbacks& cb) {
  const auto start = std::chrono::steady_clock::now();
  Env& env = env_or_default(opts.env);
  auto family = family_folder(rules, dir, env);
  if (!family) return family.error();
  auto checked = verify_detail::check_folder(rules, *family, env);
  if (!checked) return checked.error();
  verify_detail::FolderCheck& fc = *checked;
  const std::filesystem::path root = family->parent_path();
  VerifyResult result;
  result.files = fc.reported;
  if (cb.file_problem)
    for (const VerifyFileProblem& f : fc.reported) cb.file_problem(f);

  std::optional<ResultsJournal> journal;
  if (!opts.journal.empty()) {
    auto j = ResultsJournal::open(opts.journal, "verify", env);
    if (!j) return j.error();
    journal.emplace(std::move(*j));
  }
  std::optional<ResultsJournal> stats_journal;
  if (!opts.stats_journal.empty()) {
    auto j = ResultsJournal::open(opts.stats_journal, "stats", env);
    if (!j) return j.error();
    stats_journal.emplace(std::move(*j));
  }

  // What the run will check, for one progress line over all of it, and
  // what the journal says was found good before.
  if (opts.only) {  // the material alone
    if (!fc.metrics.count(*opts.only))
      return Error(table_path(root, rules, *opts.only, Metric::WDL).string() + ": no such table", ErrorCode::NotFound);
    fc.order = {*opts.only};
  }
  std::uint64_t overall_total = 0;
  std::vector<std::optional<double>> earlier(fc.order.size());  // seconds of an earlier good check
  for (std::size_t i = 0; i < fc.order.size(); ++i) {
    const Material& m = fc.order[i];
    bool own = false;
    if (!fc.blocker(m, own).empty()) continue;
    if (journal)
      if (auto found = journal->find(rules, root, m, file_metrics(fc.metrics.at(m)))) {
        const auto j = nlohmann::json::parse(*found, nullptr, /*allow_exceptions=*/false);
        earlier[i] = j.is_object() && j.contains("seconds") && j["seconds"].is_number() ? j["seconds"].get<double>()
                                                                                       : 0.0;
      }
    if (!earlier[i]) overall_total += table_slots(m);
  }
  std::atomic<std::uint64_t> overall_done{0};
  // Checked materials that later ones convert into stay in memory as far
  // as the budget allows (resident_tables.hpp), one set per metric read;
  // those the journal skips are loaded from their files when worth it.
  std::vector<bool> checked_here(fc.order.size());
  for (std::size_t i = 0; i < fc.order.size(); ++i) checked_here[i] = !earlier[i];
  ResidentTables res_prim(fc.order, checked_here);
  ResidentTables res_dtc(fc.order, checked_here);

  for (std::size_t ti = 0; ti < fc.order.size(); ++ti) {
    const Material m = fc.order[ti];
    const auto t0 = std::chrono::steady_clock::now();
    VerifyReport r;
    r.material = m;
    r.positions = table_slots(m);
    if (earlier[ti]) {
      r.journaled = true;
      r.seconds = *earlier[ti];
      if (cb.table_done) cb.table_done(r);
      result.tables.push_back(r);
      continue;
    }
    bool own = false, bad_files = false;
    std::string why = fc.blocker(m, own);
    const MetricSet files = fc.metrics.at(m);
    StatsTally tally;  // what info --stats counts, from the check
    if (why.empty()) {
      // The whole files' checksums (headers were checked by name already).
      if (Status s = check_material_files(rules, root, m, true, files, env); !s.ok()) {
        why = s.message();
        own = true;
        bad_files = s.code() != ErrorCode::Io;
      }
    }
    if (why.empty()) {
      const std::uint64_t base = overall_done.load();
      std::atomic<std::uint64_t> done{0};
      // Where the run stands: checking `m` (done of its positions), or
      // loading a table it reads first (load_total > 0).
      auto report = [&](std::uint64_t d, const Material& loading, std::uint64_t load_done, std::uint64_t load_total) {
        VerifyProgress p;
        p.material = m;
        p.table_number = ti + 1;
        p.tables_total = fc.order.size();
        p.done = d;
        p.total = r.positions;
        p.overall_done = base + d;
        p.overall_total = overall_total;
        p.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        p.loading = loading;
        p.load_done = load_done;
        p.load_total = load_total;
        cb.progress(p);
      };
      auto progress = [&] {
        if (cb.progress) report(done.load(std::memory_order_relaxed), Material{}, 0, 0);
      };
      // The budget (7/8 of it, as generate plans) less the two levels and
      // a useful successor cache per reader: what resident tables may hold.
      const int threads = std::max(1, opts.threads);
      const std::uint64_t need = verify_detail::level_bytes(m, files) +
                                 std::uint64_t(threads) * (files.dtc ? 2 : 1) * (std::uint64_t{32} << 20);
      const std::uint64_t usable = opts.memory_budget / 8 * 7;
      const std::uint64_t share = usable > need ? usable - need : 0;
      const std::uint64_t prim_share = files.dtc ? share / 2 : share;
      res_prim.make_room(ti, 0, prim_share);
      res_dtc.make_room(ti, 0, share - prim_share);
      // Tables the journal skipped that this one reads: loaded now.
      auto load = [&](ResidentTables& res, std::uint64_t room, bool dtc) -> Status {
        for (std::size_t j : res.to_load(ti, room - std::min(room, res.bytes()))) {
          const Material s = res.material(j);
          const MetricSet sf = fc.metrics.at(s);
          if (dtc && !sf.dtc) continue;
          const Metric metric = dtc ? Metric::DTC : sf.dtw ? Metric::DTW : Metric::WDL;
          auto codes = load_resident(rules, root, s, metric, &res, threads, env,
                                     [&](std::uint64_t d, std::uint64_t t) {
                                       if (cb.progress) report(0, s, d, std::max<std::uint64_t>(t, 1));
                                     });
          if (!codes) return codes.status();
          res.add(j, std::move(*codes));
        }
        return Status();
      };
      Status loaded = load(res_prim, prim_share, false);
      if (loaded.ok() && files.dtc) loaded = load(res_dtc, share - prim_share, true);
      verify_detail::Residency residency;
      residency.primary = &res_prim;
      residency.dtc = &res_dtc;
      residency.keep = res_prim.keep(ti, 0, prim_share) && (!files.dtc || res_dtc.keep(ti, 0, share - prim_share));
      residency.held = res_prim.bytes() + res_dtc.bytes() +
                       (residency.keep ? res_prim.bytes_of(ti) * (files.dtc ? 2 : 1) : 0);
      verify_detail::MaterialOutcome o;
      if (loaded.ok()) {
        o = verify_detail::check_material(rules, root, m, files, opts, cb.mismatch, done, progress, residency);
      } else {
        o.status = loaded;
        o.in_dependency = true;
      }
      if (residency.kept_primary) res_prim.add(ti, std::move(residency.kept_primary));
      if (residency.kept_dtc) res_dtc.add(ti, std::move(residency.kept_dtc));
      overall_done = base + r.positions;
      r.mismatches = o.mismatches;
      tally = o.tally;
      if (!o.status.ok()) {
        why = o.in_dependency ? "not verifiable: " + o.status.message() : o.status.message();
        own = !o.in_dependency;
        bad_files = own && o.status.code() == ErrorCode::Corrupt;
      }
    }
    if (!why.empty()) {
      r.error = why;
      r.error_in_dependency = !own;
      r.mismatches = 0;
      // Its files are damaged for whatever reads them next (an I/O error or
      // a memory limit says nothing about the files).
      if (own && bad_files) fc.mark_bad(m, why);
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (journal && result.journal_error.empty()) {
      // Only a good table is recorded: one with mismatches is checked (and
      // its mismatches listed) again by the next run.
      const Status s = r.error.empty() && r.mismatches == 0
                           ? journal->record(rules, root, m, file_metrics(files),
                                             nlohmann::json{{"positions", r.positions}, {"seconds", r.seconds}}.dump())
                           : journal->forget(rules, m);
      if (!s.ok()) result.journal_error = s.message();
    }
    if (stats_journal && result.stats_journal_error.empty() && r.error.empty() && r.mismatches == 0) {
      const Status s = stats_journal->record(rules, root, m, file_metrics(files),
                                             stats_tally_record(m, {files.dtw, files.dtc, tally}));
      if (s.ok()) ++result.stats_recorded;
      else result.stats_journal_error = s.message();
    }
    if (cb.table_done) cb.table_done(r);
    result.tables.push_back(r);
  }
  return result;
}

}  // namespace damka
