// damka generate, the output: the dry run's plan, each table as it is
// built, the summary; text or JSON (generate_command.hpp).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>

#include "damka/engine.hpp"  // format_bytes
#include "damka/phase_json.hpp"
#include "damka/rank_plan.hpp"
#include "generate_command.hpp"
#include "generate_ranks.hpp"
#include "progress.hpp"

namespace damka::cli {
namespace {

nlohmann::json side_json(const SideCounts& c) {
  return {{"wins", c.wins}, {"draws", c.draws}, {"losses", c.losses}, {"longest_win_plies", c.longest_win},
          {"longest_win_dtc_plies", c.longest_win_dtc}};
}

// The levels per LevelMode (engine.hpp), every mode named.
nlohmann::json levels_json(const Prediction& p) {
  nlohmann::json j = nlohmann::json::object();
  for (int k = 0; k < kLevelModes; ++k)
    j[std::string(level_mode_name(static_cast<LevelMode>(k)))] = p.levels_by_mode[static_cast<std::size_t>(k)];
  return j;
}

// " (N levels without a move graph)": those solved by generating un-moves
// in every pass, several times slower (a larger --memory gives them one).
std::string without_graph(const Prediction& p) {
  const std::uint32_t n = p.levels_by_mode[static_cast<std::size_t>(LevelMode::Units)] +
                          p.levels_by_mode[static_cast<std::size_t>(LevelMode::Team)];
  if (n == 0) return "";
  return "  (" + std::to_string(n) + (n == 1 ? " level" : " levels") + " without a move graph)";
}

// What a built table read, and from where: {"in_memory": [...], "loaded":
// [...], "from_files": [...]} (loaded: into memory just before it; also
// in in_memory), "untold": successors past the report's list.
nlohmann::json successors_json(const TableReport& r) {
  using From = TableReport::SuccessorRead::From;
  nlohmann::json mem = nlohmann::json::array(), loaded = nlohmann::json::array(), files = nlohmann::json::array();
  const int told = std::min(r.successor_count, TableReport::kMaxSuccessorReads);
  for (int i = 0; i < told; ++i) {
    const TableReport::SuccessorRead& s = r.successor_reads[static_cast<std::size_t>(i)];
    if (s.from == From::Files) {
      files.push_back(s.material.name());
    } else {
      mem.push_back(s.material.name());
      if (s.from == From::Loaded) loaded.push_back(s.material.name());
    }
  }
  nlohmann::json j = {{"in_memory", mem}, {"loaded", loaded}, {"from_files", files}};
  if (r.successor_count > told) j["untold"] = r.successor_count - told;
  return j;
}

}  // namespace

const char* action_name(TableReport::Action a) {
  return a == TableReport::Action::Built ? "built" : a == TableReport::Action::Skipped ? "present" : "to build";
}

void print_plan(const GenerateCommandOptions& o, const GenerateSetup& s, const std::vector<TableReport>& plan,
                const Status& fits) {
  const GenerateOptions& opt = s.opt;
  nlohmann::json out = nlohmann::json::array();
  std::uint64_t total = 0, disk = 0, peak = 0, spill = 0;
  double seconds = 0;
  if (!o.json)
    std::printf("%-12s %14s  %-8s %10s %10s %9s\n", "material", "positions", "status", "peak mem", "disk", "time");
  for (const TableReport& r : plan) {
    const bool build = r.action == TableReport::Action::Planned;
    if (build) {
      total += r.positions;
      disk += r.predicted.disk_bytes;
      peak = std::max(peak, r.predicted.peak_bytes);
      spill = std::max(spill, r.predicted.spill_bytes);
      seconds += r.predicted.seconds;
    }
    if (o.json) {
      nlohmann::json j = {{"material", r.material.name()}, {"positions", r.positions}, {"status", action_name(r.action)}};
      if (build)
        j["predicted"] = {{"peak_memory_bytes", r.predicted.peak_bytes}, {"disk_bytes", r.predicted.disk_bytes},
                          {"temporary_disk_bytes", r.predicted.spill_bytes}, {"seconds", r.predicted.seconds},
                          {"resident_bytes", r.resident_bytes}, {"levels_by_mode", levels_json(r.predicted)},
                          {"minimum_memory_bytes", r.predicted.minimum_bytes}, {"fits", r.predicted.fits}};
      if (build && opt.ranks > 1) {
        j["rank"] = r.rank == RankJob::kAllRanks ? Json("all") : Json(r.rank);
        j["predicted"]["start_seconds"] = r.predicted.start;
        j["predicted"]["finish_seconds"] = r.predicted.finish;
        if (r.rank == RankJob::kAllRanks) j["predicted"]["peak_memory_bytes_other_ranks"] = r.predicted.peak_bytes_other;
      }
      out.push_back(j);
    } else if (build) {
      const std::string short_of =
          r.predicted.fits ? "" : "  (needs at least " + format_bytes(r.predicted.minimum_bytes) + ": over --memory)";
      std::printf("%-12s %14llu  %-8s %10s %10s %9s%s%s%s\n", r.material.name().c_str(),
                  static_cast<unsigned long long>(r.positions), action_name(r.action),
                  format_bytes(r.predicted.peak_bytes).c_str(), format_bytes(r.predicted.disk_bytes).c_str(),
                  human_seconds(r.predicted.seconds).c_str(), r.spilled ? "  (levels on disk)" : "",
                  without_graph(r.predicted).c_str(), short_of.c_str());
      if (opt.ranks > 1)
        std::printf("%-12s %14s  %s, from %s to %s\n", "", "",
                    r.rank == RankJob::kAllRanks ? "split among every rank" : ("rank " + std::to_string(r.rank)).c_str(),
                    human_seconds(r.predicted.start).c_str(), human_seconds(r.predicted.finish).c_str());
    } else {
      std::printf("%-12s %14llu  %-8s\n", r.material.name().c_str(), static_cast<unsigned long long>(r.positions),
                  action_name(r.action));
    }
  }
  if (o.json) {
    Json j = generate_json(*s.rules, s.out, out);
    j["threads"] = opt.threads;
    j["metrics"] = metrics_name(opt.metrics);
    j["compression"] = compression_name(opt.compression);
    j["memory_budget_bytes"] = opt.memory_budget;
    j["total"] = {{"positions", total}, {"peak_memory_bytes", peak}, {"disk_bytes", disk},
                  {"temporary_disk_bytes", spill}, {"seconds", seconds}};
    if (opt.ranks > 1) show_rank_plan(plan, opt.ranks, true, j);
    if (!fits.ok()) {
      j["error"] = fits.message();
      j["exit_code"] = 1;
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%zu tables, %llu positions to build with %d threads (%s): peak memory %s (budget %s), disk %s",
                plan.size(), static_cast<unsigned long long>(total), opt.threads,
                (metrics_name(opt.metrics) + (opt.compression == Compression::Small ? ", small compression" : ""))
                    .c_str(),
                format_bytes(peak).c_str(), format_bytes(opt.memory_budget).c_str(), format_bytes(disk).c_str());
    if (spill) std::printf(" (+%s temporary)", format_bytes(spill).c_str());
    std::printf(", time about %s on this machine\n", human_seconds(seconds).c_str());
    if (opt.ranks > 1) {
      Json unused;
      show_rank_plan(plan, opt.ranks, false, unused);
    }
  }
}

void BuildPrinter::header() const {
  if (!o_.json && s_.speaks)
    std::printf("%-10s %-7s %11s %9s %9s %9s %6s %8s %10s %8s\n", "material", "status", "positions", "wins", "draws",
                "losses", "maxDTW", "seconds", "pos/s", "pos/B");
}

void BuildPrinter::table(const TableReport& r) {
  const SideCounts& w = r.white_to_move;
  const SideCounts& b = r.black_to_move;
  const double rate = r.seconds > 0 ? r.positions / r.seconds : 0;
  all_positions_ += r.positions;
  wdl_bytes_ += r.bytes[0];
  if (r.action == TableReport::Action::Built) {
    total_seconds_ += r.seconds;
    built_positions_ += r.positions;
  }
  if (o_.json) {
    nlohmann::json j = {{"material", r.material.name()}, {"status", action_name(r.action)},
                        {"positions", r.positions},
                        {"bytes", {{"wdl", r.bytes[0]}, {"dtw", r.bytes[1]}, {"dtc", r.bytes[2]}}}};
    if (r.action == TableReport::Action::Built) {
      j["seconds"] = r.seconds;
      j["white_to_move"] = side_json(w);
      if (!r.material.is_symmetric()) j["black_to_move"] = side_json(b);
      j["levels_on_disk"] = r.spilled;
      j["resident_bytes"] = r.resident_bytes;
      j["successors"] = successors_json(r);
      j["phases"] = phase_profile_json(r.profile);
    }
    tables_.push_back(j);
    return;
  }
  if (r.action != TableReport::Action::Built) {
    std::printf("%-10s %-7s %11llu %9s %9s %9s %6s %8s %10s %8.1f\n", r.material.name().c_str(),
                action_name(r.action), static_cast<unsigned long long>(r.positions), "-", "-", "-", "-", "-", "-",
                r.bytes[0] ? double(r.positions) / r.bytes[0] : 0.0);
    std::fflush(stdout);
    return;
  }
  std::printf("%-10s %-7s %11llu %9llu %9llu %9llu %6d %8.2f %10s %8.1f\n", r.material.name().c_str(),
              action_name(r.action), static_cast<unsigned long long>(r.positions),
              static_cast<unsigned long long>(w.wins + b.wins), static_cast<unsigned long long>(w.draws + b.draws),
              static_cast<unsigned long long>(w.losses + b.losses), std::max(w.longest_win, b.longest_win), r.seconds,
              human_count(rate).c_str(), r.bytes[0] ? double(r.positions) / r.bytes[0] : 0.0);
  if (s_.on_ranks)
    std::printf("%-10s   built by %s\n", "",
                r.rank == RankJob::kAllRanks ? "every rank (split)" : ("rank " + std::to_string(r.rank)).c_str());
  std::printf("%-10s   white to move: %llu W / %llu D / %llu L", "", static_cast<unsigned long long>(w.wins),
              static_cast<unsigned long long>(w.draws), static_cast<unsigned long long>(w.losses));
  if (!r.material.is_symmetric())
    std::printf(";  black to move: %llu W / %llu D / %llu L", static_cast<unsigned long long>(b.wins),
                static_cast<unsigned long long>(b.draws), static_cast<unsigned long long>(b.losses));
  std::printf("\n");
  std::fflush(stdout);
}

void BuildPrinter::recount(const std::vector<TableReport>& result, double wall_seconds) {
  built_positions_ = wdl_bytes_ = all_positions_ = 0;
  tables_ = nlohmann::json::array();
  for (const TableReport& r : result) {
    if (o_.json) {
      table(r);  // adds to the counts
      continue;
    }
    all_positions_ += r.positions;
    wdl_bytes_ += r.bytes[0];
    if (r.action == TableReport::Action::Built) built_positions_ += r.positions;
  }
  total_seconds_ = wall_seconds;
}

namespace {

// The built tables' phase profiles summed (threads: the run's).
PhaseProfile run_profile(const std::vector<TableReport>& result, int threads) {
  PhaseProfile p;
  for (const TableReport& r : result)
    if (r.action == TableReport::Action::Built) p.add(r.profile);
  p.threads = threads;
  return p;
}

// "threads busy 87% of 2 (units 95%, team 61%, ...); successor reads 1.2 s
// ...; kernel 3.1 s of CPU, 81234 page faults"
void print_profile(const PhaseProfile& p) {
  if (p.wall() <= 0) return;
  auto share = [&](const PhaseTime& t) { return t.wall > 0 ? 100.0 * t.busy / (p.threads * t.wall) : 0.0; };
  const PhaseTime all = p.total();
  std::printf("threads busy %.0f%% of %d (", share(all), p.threads);
  const char* sep = "";
  for (int k = 0; k < kPhases; ++k) {
    const PhaseTime& t = p.phase[k];
    if (t.wall < 0.05) continue;
    std::printf("%s%s %.1f s %.0f%%", sep, std::string(phase_name(static_cast<Phase>(k))).c_str(), t.wall, share(t));
    sep = ", ";
  }
  std::printf("); successor reads %.1f s of thread time; kernel %.1f s of CPU, %.0f page faults\n", p.reads,
              all.kernel, all.faults);
}

}  // namespace

void BuildPrinter::summary(const std::vector<TableReport>& result, int threads) const {
  const PhaseProfile profile = run_profile(result, threads);
  if (o_.json) {
    Json j = generate_json(*s_.rules, s_.out, tables_);
    j["seconds"] = total_seconds_;
    j["built_positions"] = built_positions_;
    j["threads"] = threads;
    j["metrics"] = metrics_name(s_.opt.metrics);
    j["compression"] = compression_name(s_.opt.compression);
    if (s_.on_ranks) j["ranks"] = s_.cluster->size();
    j["phases"] = phase_profile_json(profile);
    add_peak_memory(j, s_.opt.memory_budget);
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf("%zu tables (%s positions) in %s; built %s positions in %.1f s (%s pos/s, %s pos/s per thread); "
              "WDL %.1f positions per byte\n",
              result.size(), human_count(double(all_positions_)).c_str(), s_.out.c_str(),
              human_count(double(built_positions_)).c_str(), total_seconds_,
              human_count(total_seconds_ > 0 ? built_positions_ / total_seconds_ : 0).c_str(),
              human_count(total_seconds_ > 0 ? built_positions_ / total_seconds_ / threads : 0).c_str(),
              wdl_bytes_ ? double(all_positions_) / wdl_bytes_ : 0.0);
  print_profile(profile);
  std::printf("%s\n", peak_memory_words(s_.opt.memory_budget).c_str());
}

}  // namespace damka::cli
