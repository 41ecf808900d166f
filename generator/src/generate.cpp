// `damka generate`: solve materials in build order and write their files.
#include "damka/generate.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <system_error>

#include "damka/open_table.hpp"
#include "damka/output_lock.hpp"
#include "damka/rank_plan.hpp"
#include "damka/safe_file.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/table_paths.hpp"
#include "damka/value_oracle.hpp"
#include "file_successors.hpp"
#include "generate_detail.hpp"
#include "resolve_derived.hpp"

namespace damka {
namespace generate_detail {
namespace {

constexpr Metric kMetrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};

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

}  // namespace

std::vector<Material> targets(const GenerateOptions& opt) {
  if (!opt.only) return build_order(opt.max_pieces);
  std::set<Material> need;
  std::vector<Material> stack{opt.only->canonical()};
  while (!stack.empty()) {
    const Material x = stack.back();
    stack.pop_back();
    if (need.insert(x).second)
      for (const Material& s : successors(x)) stack.push_back(s);
  }
  std::vector<Material> order;
  for (const Material& m : build_order(opt.only->pieces()))
    if (need.count(m)) order.push_back(m);
  return order;
}

namespace {

// Writes the files of one material as the engine streams its values.
class FileSink : public ValueSink {
 public:
  FileSink(const Rules& rules, const std::filesystem::path& dir, const Material& m, const MetricSet& metrics,
           Compression compression, int threads, Env& env)
      : rules_(rules), dir_(dir), m_(m), passes_(metrics), metrics_(metrics), compression_(compression),
        threads_(threads), env_(env) {}

  Status open() {
    WriteOptions wo;
    wo.threads = threads_;
    wo.env = &env_;
    for (int k = 0; k < 3; ++k) {
      if ((kMetrics[k] == Metric::DTW && !metrics_.dtw) || (kMetrics[k] == Metric::DTC && !metrics_.dtc)) continue;
      auto b = TableBuilder::create(table_path(dir_, rules_, m_, kMetrics[k]),
                                    default_table_header(rules_, m_, kMetrics[k], compression_), wo);
      if (!b) return b.error();
      builders_[k] = std::move(*b);
    }
    return {};
  }
  Status add(std::uint64_t, std::span<const std::span<const std::uint16_t>> codes) override {
    wdl_.resize(codes[0].size());
    const std::span<const std::uint16_t> primary = codes[0];
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(wdl_.size()); ++i)
      wdl_[i] = primary[i] == kDontCareCode ? kDontCareCode : Value::decode(primary[i]).wdl_only().encode();
    if (Status s = builders_[0]->add(wdl_); !s.ok()) return s;
    if (builders_[1])
      if (Status s = builders_[1]->add(without_draws(codes[0])); !s.ok()) return s;
    if (builders_[2])
      if (Status s = builders_[2]->add(without_draws(codes[passes_.dtc])); !s.ok()) return s;
    return {};
  }
  // A distance file's drawn positions are don't care: the WDL file says
  // they are drawn (FORMAT.md 3.5; about 14% smaller DTW and DTC files).
  std::span<const std::uint16_t> without_draws(std::span<const std::uint16_t> codes) {
    dist_.resize(codes.size());
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(codes.size()); ++i)
      dist_[i] = codes[i] == Value::draw().encode() ? kDontCareCode : codes[i];
    return dist_;
  }

  Status finish(TableReport& r) {
    for (int k = 0; k < 3; ++k) {
      if (!builders_[k]) continue;
      if (Status s = builders_[k]->finish(); !s.ok()) return s;
      r.bytes[k] = builders_[k]->file_size();
    }
    return {};
  }

 private:
  const Rules& rules_;
  std::filesystem::path dir_;
  Material m_;
  PassList passes_;
  MetricSet metrics_;
  Compression compression_;
  int threads_;
  Env& env_;
  std::unique_ptr<TableBuilder> builders_[3];
  std::vector<std::uint16_t> wdl_, dist_;
};

// Nothing to write: a rank that is not a split's writer (LevelSplit).
class NoSink : public ValueSink {
 public:
  Status add(std::uint64_t, std::span<const std::span<const std::uint16_t>>) override {
    return Error("a rank that does not write a split material received its values");
  }
};

}  // namespace

// Solves a small material (and what it needs) and times the last one.  It
// builds DTW and DTC, so a WDL-only plan is predicted on the slow side.
double calibrate(const Rules& rules, int threads) {
  Solver solver(rules, threads);
  const Material probe{1, 1, 1, 1};  // 1K1Mv1K1M: men and kings, 661K positions
  for (const Material& s : successors(probe)) solver.solve(s);
  const auto t0 = std::chrono::steady_clock::now();
  const SolveStats st = solver.solve_one(probe);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return secs > 0 ? static_cast<double>(st.positions) / secs : 1e6;
}

// How fast building material m from files runs, as a share of the
// calibrated rate (the in-memory Solver on 1K1Mv1K1M).  Fitted to every table
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

void fill_present(const Rules& rules, const GenerateOptions& opt, TableReport& r) {
  r.action = TableReport::Action::Skipped;
  const std::vector<Metric> fm = file_metrics(opt.metrics);
  std::error_code ec;
  for (int k = 0; k < 3; ++k)
    if (std::find(fm.begin(), fm.end(), kMetrics[k]) != fm.end())
      r.bytes[k] = std::filesystem::file_size(table_path(opt.out, rules, r.material, kMetrics[k]), ec);
}

ResidentStep resident_step(ResidentTables& resident, std::size_t i, const Material& m, const MetricSet& metrics,
                           int threads, std::uint64_t budget) {
  const std::uint64_t need = plan_memory(m, metrics, threads, kCachePerThread, budget).peak;
  // The tables and the build's plan stay within 7/8 of the budget: the
  // tables are counted exactly, so what the plan does not see (allocator
  // slack, the sink's buffers) has the rest.
  const std::uint64_t share = budget / 8 * 7;
  resident.make_room(i, need, share);
  ResidentStep step;
  step.keep = resident.keep(i, need, share);
  const std::uint64_t held = resident.bytes() + (step.keep ? resident.bytes_of(i) : 0);
  step.budget = budget - std::min(budget, held);
  step.held = held;
  return step;
}

Status build_table(const Rules& rules, const GenerateOptions& opt, LevelSplit* split,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress, TableReport& r,
                   ResidentTables* resident, std::size_t index) {
  const Material m = r.material;
  const int threads = std::max(1, opt.threads);
  const Metric primary = opt.metrics.dtw ? Metric::DTW : Metric::WDL;
  ResidentStep step;
  step.budget = opt.memory_budget;
  if (resident != nullptr) step = resident_step(*resident, index, m, opt.metrics, threads, opt.memory_budget);
  r.resident_bytes = step.held;
  Env& env = env_or_default(opt.env);
  auto succ = FileSuccessors::open(rules, opt.out, successors(m), primary, kCachePerThread, resident, env);
  if (!succ) return Error(m.name() + ": cannot read a table it converts into: " + succ.message());
  const bool writes = split == nullptr || split->writer();
  FileSink sink(rules, opt.out, m, opt.metrics, opt.compression, threads, env);
  NoSink none;
  if (writes)
    if (Status s = sink.open(); !s.ok()) return s;
  BuildOptions bo;
  bo.metrics = opt.metrics;
  bo.threads = threads;
  bo.memory_budget = step.budget;
  bo.spill_dir = table_dir(opt.out, rules);
  bo.progress = progress;
  bo.split = split;
  bo.mark_derived = true;  // capture positions are don't-care in the files
  bo.env = &env;
  bo.before_unit = opt.before_unit;
  auto resolved = step.keep ? std::make_shared<BigVector<std::uint16_t>>() : nullptr;
  bo.resolved = resolved.get();
  BuildStats bs;
  if (Status s = build_material(rules, m, **succ, writes ? static_cast<ValueSink&>(sink) : none, bo, bs); !s.ok())
    return s;
  if (writes)
    if (Status s = sink.finish(r); !s.ok()) return s;
  if (resolved) resident->add(index, std::move(resolved));
  r.action = TableReport::Action::Built;
  r.white_to_move = bs.side[0];
  r.black_to_move = bs.side[1];
  r.spilled = bs.spilled;
  return {};
}

}  // namespace generate_detail

using namespace generate_detail;

std::uint64_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return std::uint64_t{8} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) / 10 * 8;
}

Expected<MetricSet> parse_metrics(std::string_view text) {
  MetricSet m{false, false, false};
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view name = text.substr(at, comma - at);
    if (name == "dtw") m.dtw = true;
    else if (name == "dtc") m.dtc = true;
    else if (name != "wdl")
      return Error("unknown metric '" + std::string(name) + "' in '" + std::string(text) + "' (known: wdl, dtw, dtc)");
    at = comma + 1;
  }
  return m;
}

std::string metrics_name(const MetricSet& m) {
  return std::string("wdl") + (m.dtw ? ",dtw" : "") + (m.dtc ? ",dtc" : "");
}

std::vector<Metric> file_metrics(const MetricSet& m) {
  std::vector<Metric> v{Metric::WDL};
  if (m.dtw) v.push_back(Metric::DTW);
  if (m.dtc) v.push_back(Metric::DTC);
  return v;
}

Status check_material_files(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                            bool full_checksum, const MetricSet& metrics, Env& env) {
  for (Metric m : file_metrics(metrics)) {
    const auto path = table_path(dir, rules, canonical, m);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Error(path.string() + ": missing", ErrorCode::NotFound);
    auto reader = open_table(path, rules, canonical, m, FileAccess::Pread, env);
    if (!reader) return reader.error();
    if (full_checksum)
      if (Status s = (*reader)->verify_file_checksum(); !s.ok()) return s;
  }
  return {};
}

Expected<SolvedTable> load_solved_table(const Rules& rules, const std::filesystem::path& dir,
                                        const Material& canonical, const TableSource* loaded) {
  SolvedTable t;
  t.material = canonical;
  auto read_codes = [&](Metric m, std::vector<std::uint16_t>& codes) -> Status {
    auto reader = open_table(table_path(dir, rules, canonical, m), rules, canonical, m);
    if (!reader) return reader.error();
    codes.clear();
    codes.reserve((*reader)->header().slots);
    std::vector<std::uint16_t> block;
    for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
      if (Status s = (*reader)->read_block(b, block); !s.ok()) return s;
      codes.insert(codes.end(), block.begin(), block.end());
    }
    if (codes.size() != table_slots(canonical)) return Error((*reader)->path().string() + ": wrong number of positions");
    return {};
  };
  std::vector<std::uint16_t> wdl;
  if (Status s = read_codes(Metric::WDL, wdl); !s.ok()) return s.error();
  for (Metric m : {Metric::DTW, Metric::DTC}) {
    std::vector<std::uint16_t>& codes = m == Metric::DTW ? t.dtw : t.dtc;
    if (Status s = read_codes(m, codes); !s.ok()) return s.error();
    // Drawn positions from the WDL file (their distance entries are don't
    // care).  Derived entries of both files mean nothing; resolve_derived
    // gives them their true values.
    for (std::size_t i = 0; i < codes.size(); ++i) {
      Value v;
      (void)distance_value(wdl[i], codes[i], v);
      codes[i] = v.encode();
    }
    if (auto r = resolve_derived(rules, dir, canonical, m, codes, loaded); !r) return r.error();
  }
  return t;
}

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
  if (ranks == 1 && opt.keep_finished) resident.emplace(order, build);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Material m = order[i];
    TableReport r;
    r.material = m;
    r.positions = table_slots(m);
    r.action = build[i] ? TableReport::Action::Planned : TableReport::Action::Skipped;
    if (r.action == TableReport::Action::Planned) {
      if (rate == 0) rate = calibrate(rules, threads);
      ResidentStep step;
      step.budget = opt.memory_budget;
      if (resident) step = resident_step(*resident, i, m, opt.metrics, threads, opt.memory_budget);
      const MemoryPlan mp = plan_memory(m, opt.metrics, threads, kCachePerThread, step.budget);
      r.predicted.peak_bytes = step.held + mp.peak;
      r.resident_bytes = step.held;
      if (step.keep) resident->add(i, nullptr);
      r.predicted.spill_bytes = mp.spill_disk;
      const bool small = opt.compression == Compression::Small;
      int zstd_files = 0;
      for (Metric fm : file_metrics(opt.metrics)) {
        const bool zstd_file = fm != Metric::WDL;
        zstd_files += zstd_file;
        r.predicted.disk_bytes += static_cast<std::uint64_t>(static_cast<double>(r.positions) /
                                                             positions_per_byte(fm, m.pieces()) *
                                                             (small && zstd_file ? kSmallSizeShare : 1.0));
      }
      r.predicted.seconds = static_cast<double>(r.positions) / (rate * speed_share(m, r.positions));
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

Expected<std::vector<TableReport>> generate(const Rules& rules, const GenerateOptions& opt,
                                            const GenerateCallbacks& cb) {
  if (opt.cluster != nullptr && opt.cluster->size() > 1) return generate_on_ranks(rules, opt, cb, *opt.cluster);
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  const std::filesystem::path dir = table_dir(opt.out, rules);
  const std::vector<Material> order = targets(opt);
  // Which materials need building (their files are missing or invalid);
  // a damaged file is rebuilt, and said so.
  std::vector<bool> present(order.size());
  std::uint64_t overall_total = 0, overall_done = 0;
  std::vector<std::string> rebuilding;
  const auto check_present = [&] {
    overall_total = 0;
    rebuilding.clear();
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Status s = check_material_files(rules, opt.out, order[i], true, opt.metrics, env_or_default(opt.env));
      present[i] = s.ok();
      if (!present[i]) overall_total += table_slots(order[i]);
      if (!s.ok() && s.code() != ErrorCode::NotFound) rebuilding.push_back(order[i].name() + ": " + s.message());
    }
  };
  const Status made = make_directories(dir);
  // One run per folder and family; stale temporary files removed (output_lock.hpp).
  auto output_lock =
      !made.ok() ? Expected<OutputLock>(made.error()) : lock_output(rules, opt.out, cb.notice, env_or_default(opt.env));
  if (!output_lock) {
    // A folder this user cannot write (read-only, or another user's) is
    // fine when every table is already there: nothing needs writing.
    if (output_lock.code() != ErrorCode::Io) return output_lock.error();
    check_present();
    if (overall_total != 0) return output_lock.error();
    if (cb.notice) cb.notice("every table is present; " + output_lock.message() + " (nothing to build)");
  } else {
    report_stale_notes(rules, opt.out, cb.notice);
    check_present();
  }
  if (cb.notice)
    for (const auto& why : rebuilding) cb.notice("rebuilding " + why);

  // Finished tables later materials convert into stay in memory when the
  // budget allows (resident_tables.hpp).
  std::vector<bool> build(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) build[i] = !present[i];
  ResidentTables resident(order, build);
  std::vector<TableReport> reports;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Material m = order[i];
    TableReport r;
    r.material = m;
    r.positions = table_slots(m);
    const auto t0 = std::chrono::steady_clock::now();
    if (present[i]) {
      fill_present(rules, opt, r);
    } else {
      const auto progress = [&](std::uint64_t done, std::uint64_t total) {
        if (cb.progress)
          cb.progress(Progress{m, i + 1, order.size(), done, total, overall_done + done, overall_total,
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
      };
      if (Status s = build_table(rules, opt, nullptr, progress, r, opt.keep_finished ? &resident : nullptr, i);
          !s.ok())
        return s.error();
      overall_done += r.positions;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (cb.table_done) cb.table_done(r);
    reports.push_back(r);
  }
  return reports;
}

}  // namespace damka
