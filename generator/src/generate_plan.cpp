// `damka generate --dry-run`: the plan of a build and its prediction model
// (time, peak memory, disk), fitted to measured builds.
#include <algorithm>
#include <cmath>
#include <optional>

#include "damka/generate.hpp"
#include "damka/phase_notes.hpp"
#include "damka/phase_profile.hpp"
#include "damka/rank_plan.hpp"
#include "damka/slots.hpp"
#include "generate_detail.hpp"
#include "phase_clock.hpp"
#include "resident_tables.hpp"

namespace damka {
namespace generate_detail {
namespace {

// Positions per byte of each file (WDL, DTW, DTC) by the material's piece
// count: the dry run's disk estimate.  Measured (Russian, format version 5,
// default compression) over the materials of 5 pieces (`-n 5`) and of 6
// (`-n 6`); at 7 pieces, over the six 7-piece materials of `-n 7 -m
// 2K2Mv2K1M` (7.75e9 positions) in version 4, with DTW and DTC scaled by
// version 5's gain at 5 pieces (x1.115, x1.227): a capture to make is more
// common with more pieces, and those entries are don't care.
constexpr double kPositionsPerByte[3][3] = {
    {38.0, 7.2, 12.0},   // up to 5 pieces
    {40.7, 7.0, 15.4},   // 6
    {41.9, 17.1, 25.0},  // 7 and more
};
double positions_per_byte(Metric metric, int pieces) {
  return kPositionsPerByte[std::clamp(pieces - 5, 0, 2)][static_cast<int>(metric)];
}
// Compression::Small: DTW and DTC files 0.89 of that size, and zstd's extra
// CPU time per position of each such file (Russian <= 5 pieces, idle
// machine: 23.5 s more user time over 3.1e8 DTW + DTC positions).
constexpr double kSmallSizeShare = 0.89;
constexpr double kSmallSecondsPerPosition = 0.08e-6;
// Loading a present table into memory (load_resident.hpp): CPU seconds per
// position, the later searches of the capture positions read included
// (Russian -m 3Kv1K2M with its successors present: 7.4 CPU-s for the 26.8M
// positions of the three it loaded while every capture position was
// searched at load time; since they wait for their first read, loading and
// those searches take 0.63x that CPU time there, 0.42x for -m 2K2Mv1K1M).
constexpr double kLoadSecondsPerPosition = 0.15e-6;

// The one-thread time of a build of `metrics` as a share of one of all
// three (what calibrate() and speed_share() describe): every build
// generates each position's moves and reads its successors once, writes a
// WDL file and runs one pass (WDL, or DTW when it is built); DTC adds a
// second pass and DTW a distance pass and its file.  Fitted to Russian
// `-n 5 -t 1` (CPU seconds, a busy machine, 2026-11-28): WDL 28.7, WDL+DTW
// 31.6, WDL+DTC 38.1, all 38.2, as an additive model (0.75, 0.82, 0.93, 1).
double metrics_share(const MetricSet& metrics) {
  return 0.75 + (metrics.dtw ? 0.07 : 0.0) + (metrics.dtc ? 0.18 : 0.0);
}

}  // namespace

// Solves a small material (and what it needs) on one thread and times the
// last one by the thread's CPU time (OpenMP runs a one-thread region on the
// calling thread), which other work on the machine does not inflate (timed
// by wall time beside a running build, it planned up to 2.5x).  It builds
// DTW and DTC: other metric sets are scaled by metrics_share().
double calibrate(const Rules& rules) {
  Solver solver(rules, 1);
  const Material probe{1, 1, 1, 1};  // 1K1Mv1K1M: men and kings, 661K positions
  for (const Material& s : successors(probe)) solver.solve(s);
  const double cpu0 = engine_detail::thread_cpu_seconds();
  const SolveStats st = solver.solve_one(probe);
  const double secs = engine_detail::thread_cpu_seconds() - cpu0;
  return secs > 0 ? static_cast<double>(st.positions) / secs : 1e6;
}

// How fast building material m from files runs, as a share of the
// calibrated rate (both on the same number of threads: the dry run takes
// one and scales by the phase model) (the in-memory Solver on 1K1Mv1K1M).  Fitted to every table
// of the Russian build up to 6 pieces (2 threads, idle 2-core development
// machine, 2026-11-23): at 1e7 positions men-heavy tables ran at 0.51 of the
// calibrated rate, one-man tables 0.43 and kings-only ones 0.20 (a team of
// threads on one slice), falling as positions^-0.07 (larger tables miss the
// caches more).  Since then finished tables stay in memory for the materials
// built next and the arrays sit on huge pages: the same builds ran 1.29x
// faster against the calibration (2026-11-24, idle: up to 5 pieces planned
// 32 s / measured 24.5 s, up to 6 pieces 641 s / 501 s), so the shares are
// scaled by 1.29.
double speed_share(const Material& m, std::uint64_t positions) {
  const double kind = 1.29 * (m.men() == 0 ? 0.20 : m.men() == 1 ? 0.43 : 0.51);
  const double size = std::pow(std::max(1.0, static_cast<double>(positions)) / 1e7, -0.07);
  return std::min(1.0, kind * size);
}

// The measured speed of this folder's earlier builds of a kind of
// material against the model's: their CPU seconds (every thread's, which a
// machine shared with other work does not inflate) over what
// positions / (rate * speed_share) predicts for them on one thread; 1 with
// none large enough to tell (tables under kFitPositions positions are
// mostly fixed costs).  Clamped to [1/4, 8] against odd notes.  The model's
// shares were fitted up to 6 pieces; the Russian 7-piece build ran at 1.6x
// to 3.5x its plan, and a resumed build's dry run now says so.
constexpr std::uint64_t kFitPositions = 1'000'000;
double measured_speed_factor(const PhaseNotes& notes, BuildKind kind, double rate) {
  double busy = 0, predicted = 0;
  for (const auto& [name, note] : notes) {
    const PhaseProfile& profile = note.profile;
    auto m = Material::parse(name);
    if (!m || !m->is_valid() || build_kind(*m) != kind || profile.threads <= 0 || !(profile.busy() > 0)) continue;
    const std::uint64_t n = table_slots(*m);
    if (n < kFitPositions) continue;
    busy += profile.busy();
    predicted += static_cast<double>(n) / (rate * speed_share(*m, n)) * metrics_share(note.metrics);
  }
  return predicted > 0 ? std::clamp(busy / predicted, 0.25, 8.0) : 1.0;
}

}  // namespace generate_detail

using namespace generate_detail;

Expected<std::vector<TableReport>> plan_generation(const Rules& rules, const GenerateOptions& opt) {
  const int threads = std::max(1, opt.threads);
  std::vector<TableReport> plan;
  double rate = 0;
  const std::vector<Material> order = targets(opt);
  std::vector<bool> build(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    build[i] = !check_material_files(rules, opt.out, order[i], false, opt.metrics, env_or_default(opt.env)).ok();
  const int ranks = opt.cluster != nullptr ? opt.cluster->size() : std::max(1, opt.ranks);
  // One process keeps finished tables in memory as generate() does (ranks do not).
  std::optional<ResidentTables> resident;
  const PhaseNotes notes = read_phase_notes(phase_notes_path(rules, opt.out), env_or_default(opt.env));
  PhaseScaling scaling[2];
  for (BuildKind kind : {BuildKind::Units, BuildKind::KingsOnly}) {
    const PhaseProfile measured = notes_profile(notes, kind);
    scaling[static_cast<int>(kind)] = measured.threads > 0 && measured.wall() > 0 ? scaling_of(measured) : default_scaling(kind);
  }
  double fitted[2] = {1.0, 1.0};  // measured_speed_factor, once the rate is known
  if (ranks == 1 && opt.keep_finished) {
    resident.emplace(order, build);
    resident->save_dropped(true);  // as generate() does: what it drops and reloads is the same
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Material m = order[i];
    TableReport r;
    r.material = m;
    r.positions = table_slots(m);
    r.action = build[i] ? TableReport::Action::Planned : TableReport::Action::Skipped;
    if (r.action == TableReport::Action::Planned) {
      if (rate == 0) {
        rate = opt.calibrated_rate > 0 ? opt.calibrated_rate : calibrate(rules);
        for (BuildKind kind : {BuildKind::Units, BuildKind::KingsOnly})
          fitted[static_cast<int>(kind)] = measured_speed_factor(notes, kind, rate);
      }
      ResidentStep step;
      step.budget = opt.memory_budget;
      if (resident) step = resident_step(*resident, i, m, opt.metrics, threads, opt.memory_budget);
      const MemoryPlan mp =
          plan_memory(m, opt.metrics, threads, kCachePerThread, step.budget, KingsOnly::Auto, step.store_on_disk);
      r.predicted.peak_bytes = step.held + mp.peak;
      r.predicted.minimum_bytes = mp.minimum;
      r.predicted.fits = mp.minimum <= step.budget;  // build_material's check
      r.resident_bytes = step.held;
      if (step.keep) resident->add(i, nullptr);
      double load_seconds = 0;
      for (std::size_t j : step.load) {
        resident->add(j, nullptr);
        load_seconds += static_cast<double>(table_slots(order[j])) * kLoadSecondsPerPosition / threads;
      }
      // The level file, and the saved codes of tables dropped from memory.
      r.predicted.spill_bytes = mp.spill_disk + (resident ? resident->saved_bytes(i) : 0);
      r.predicted.levels_by_mode = mp.levels_by_mode;
      const bool small = opt.compression == Compression::Small;
      int zstd_files = 0;
      for (Metric fm : file_metrics(opt.metrics)) {
        const bool zstd_file = fm != Metric::WDL;
        zstd_files += zstd_file;
        r.predicted.disk_bytes += static_cast<std::uint64_t>(static_cast<double>(r.positions) /
                                                             positions_per_byte(fm, m.pieces()) *
                                                             (small && zstd_file ? kSmallSizeShare : 1.0));
      }
      // The time on one thread (the model's, times this folder's measured
      // factor for the kind), then on `threads` by the phases' parallel
      // shares (phase_profile.hpp): this folder's earlier builds of this
      // kind of material when it has some, else the built-in shares.
      const double one_thread = static_cast<double>(r.positions) / (rate * speed_share(m, r.positions)) *
                                metrics_share(opt.metrics) * fitted[static_cast<int>(build_kind(m))];
      r.predicted.seconds =
          predicted_seconds(scaling[static_cast<int>(build_kind(m))], one_thread, threads) + load_seconds;
      if (small)
        r.predicted.seconds +=
            static_cast<double>(r.positions) * zstd_files * kSmallSecondsPerPosition / threads;
      r.spilled = mp.spill;
    }
    plan.push_back(r);
  }
  if (ranks > 1 && rate > 0) {  // who builds what, and when (rank_plan.hpp)
    // The schedule counts positions; turn them into time at the plan's mean rate.
    double positions = 0, seconds = 0;
    for (const TableReport& r : plan)
      if (r.action == TableReport::Action::Planned) {
        positions += static_cast<double>(r.positions);
        seconds += r.predicted.seconds;
      }
    const double mean_rate = seconds > 0 ? positions / seconds : rate;
    for (const RankJob& job : plan_ranks(order, build, ranks, opt.split_above).jobs) {
      TableReport& r = plan[job.index];
      r.rank = job.rank;
      r.predicted.start = job.start / mean_rate;
      r.predicted.finish = job.finish / mean_rate;  // predicted.seconds stays the time on one rank
      if (job.rank == RankJob::kAllRanks)  // the other ranks keep no finished levels
        r.predicted.peak_bytes_other =
            plan_memory(r.material, opt.metrics, threads, kCachePerThread, opt.memory_budget).minimum;
    }
  }
  return plan;
}

Status budget_refusal(const std::vector<TableReport>& plan, const GenerateOptions& opt) {
  std::vector<std::pair<Material, std::uint64_t>> short_of;
  for (const TableReport& r : plan)
    if (r.action == TableReport::Action::Planned && !r.predicted.fits)
      short_of.emplace_back(r.material, r.predicted.minimum_bytes);
  return memory_refusal(short_of, opt);
}

}  // namespace damka
