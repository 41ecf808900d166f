// damka generate: build every table up to N pieces for a variant.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "damka/generate.hpp"
#include "damka/rank_plan.hpp"
#include "damka/table_paths.hpp"
#include "generate_ranks.hpp"
#include "progress.hpp"
#include "thread_check.hpp"

namespace damka::cli {
namespace {

nlohmann::json side_json(const SideCounts& c) {
  return {{"wins", c.wins}, {"draws", c.draws}, {"losses", c.losses}, {"longest_win_plies", c.longest_win},
          {"longest_win_dtc_plies", c.longest_win_dtc}};
}

constexpr int kMaxGeneratePieces = 8;  // -n and -m

const char* action_name(TableReport::Action a) {
  return a == TableReport::Action::Built ? "built" : a == TableReport::Action::Skipped ? "present" : "to build";
}

}  // namespace

void register_generate(CLI::App& app, int& rc, const Context& context) {
  auto* cmd = app.add_subcommand("generate", "Build every table of up to N pieces (both sides present) for a variant");
  struct Opts {
    std::string variant = "russian";
    int pieces = 4;
    std::string out = "data/tables";
    int threads = 0;
    std::string material;
    bool dry_run = false, json = false;
    std::string memory, metrics = "wdl,dtw,dtc";
    std::string compression = "fast";
    int ranks = 0;
    std::uint64_t split_above = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("-n,--pieces", o->pieces, "Largest number of pieces on the board")
      ->capture_default_str()->check(CLI::Range(2, kMaxGeneratePieces));
  cmd->add_option("-o,--out", o->out, "Directory of tables (a subfolder per variant family)")->capture_default_str();
  cmd->add_option("-t,--threads", o->threads, "Threads (0 = all cores)")->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("-m,--material", o->material, "Build only this material and what it needs, e.g. 3Kv1K");
  cmd->add_option("--metrics", o->metrics, "Tables to build: wdl,dtw,dtc or a subset (wdl is always built)")
      ->capture_default_str();
  cmd->add_option("--compression", o->compression,
                  "DTW/DTC files: fast (zstd level 9, 16384-position blocks) or small (level 15, 32768: about 11% "
                  "smaller, about 5x the compression time)")
      ->check(CLI::IsMember({"fast", "small"}, CLI::ignore_case))
      ->capture_default_str();
  cmd->add_option("--memory", o->memory,
                  "Memory budget, e.g. 8G or 512M (default: 80% of this machine's memory); larger materials keep "
                  "their finished levels in a temporary file in the output folder")
      ->check(non_empty_size());
  cmd->add_flag("--dry-run", o->dry_run,
                "List what would be built with predicted peak memory, disk and time on this machine; build nothing");
  cmd->add_flag("--json", o->json, "Print the summary as JSON on stdout");
  cmd->add_option("--ranks", o->ranks,
                  "With --dry-run: plan for this many MPI ranks (under mpirun: the job's size); see README, "
                  "\"Building on several machines\"")
      ->check(CLI::Range(1, 4096));
  auto* split_opt = cmd->add_option("--split-above", o->split_above,
                                    "On several ranks: split every material of at least this many positions "
                                    "across the ranks, and no other (default: where the plan finishes sooner)")
                       ->check(CLI::NonNegativeNumber);
  cmd->callback([o, &rc, split_opt, &context] {
    Report report("generate", o->json);
    // Under mpirun: this process is one rank of a job (generate_ranks.hpp).
    auto joined = join_launcher_job();
    if (!joined) {
      rc = report.fail(2, joined.message());
      return;
    }
    const std::unique_ptr<Cluster> cluster = std::move(*joined);
    const bool on_ranks = cluster && cluster->size() > 1;
    const bool speaks = !cluster || cluster->rank() == 0;  // rank 0 prints the summary
    auto rules = lookup_variant(report, o->variant, rc);
    if (!rules) return;
    report.set("variant", std::string(rules->name));
    report.set("folder", o->out);
    if (o->out.empty()) {
      rc = report.fail(2, "--out is empty; name the directory of tables (e.g. -o data/tables)");
      return;
    }
    // -o T/russian names the variant's own subfolder: build into T (its
    // parent), not T/russian/russian, as every reader takes that folder too.
    {
      std::filesystem::path out = o->out;
      if (out.filename().empty() && out.has_parent_path()) out = out.parent_path();
      const std::string family = table_family(*rules);
      std::error_code ec;
      if (out.filename() == family && !std::filesystem::is_directory(out / family, ec)) {
        const std::filesystem::path parent = out.parent_path().empty() ? std::filesystem::path(".") : out.parent_path();
        if (speaks && !o->json)
          report.warn(out.string() + " is the " + family + " subfolder; building into " + parent.string() +
                      " (tables go to " + (parent / family).string() + ")");
        o->out = parent.string();
        report.set("folder", o->out);
      }
    }
    warn_threads_above_cores("generate", resolve_threads(o->threads));
    if (!o->dry_run)
      if (Status s = check_threads(resolve_threads(o->threads)); !s.ok()) {
        rc = report.fail(1, s.message());
        return;
      }
    GenerateOptions opt;
    opt.max_pieces = o->pieces;
    opt.out = o->out;
    opt.threads = resolve_threads(o->threads);
    opt.dry_run = o->dry_run;
    opt.cluster = cluster.get();
    opt.env = context.env;
    opt.job_progress_hook = context.job_progress_hook;
    opt.before_unit = context.before_unit;
    if (!split_opt->empty()) opt.split_above = o->split_above;
    if (o->ranks > 0 && !o->dry_run) {
      rc = report.fail(2, "--ranks plans a run on several ranks with --dry-run; to run on N ranks, start "
                          "`mpirun -np N damka generate ...`");
      return;
    }
    if (o->ranks > 0 && cluster && o->ranks != cluster->size()) {
      rc = report.fail(2, "--ranks " + std::to_string(o->ranks) + " but mpirun started " +
                              std::to_string(cluster->size()) + " ranks");
      return;
    }
    opt.ranks = cluster ? cluster->size() : std::max(1, o->ranks);
    {
      auto metrics = parse_metrics(o->metrics);
      if (!metrics) {
        rc = report.fail(2, "--metrics: " + metrics.message());
        return;
      }
      opt.metrics = *metrics;
      opt.compression = o->compression == compression_name(Compression::Small) ? Compression::Small : Compression::Fast;
      if (!memory_option(report, o->memory, opt.memory_budget, rc)) return;
    }
    if (!o->material.empty()) {
      auto m = Material::parse(o->material);
      if (!m) {
        rc = report.fail(2, m.message());
        return;
      }
      if (m->white() == 0 || m->black() == 0) {
        rc = report.fail(2, "material " + m->name() + " has a side without pieces (nothing to solve)");
        return;
      }
      if (m->pieces() > o->pieces) {
        rc = report.fail(2, material_outside_pieces(m->name(), m->pieces(), o->pieces));
        return;
      }
      if (m->pieces() > kMaxGeneratePieces) {
        rc = report.fail(2, "material " + m->name() + " has " + std::to_string(m->pieces()) +
                                " pieces; damka builds tables of at most " + std::to_string(kMaxGeneratePieces) +
                                " pieces (as -n)");
        return;
      }
      opt.only = *m;
    }
    nlohmann::json out = nlohmann::json::array();
    if (o->dry_run) {
      if (!speaks) {  // one plan, printed by rank 0
        rc = 0;
        return;
      }
      auto plan = plan_generation(*rules, opt);
      if (!plan) {
        rc = report.fail(1, plan.message());
        return;
      }
      std::uint64_t total = 0, disk = 0, peak = 0, spill = 0;
      double seconds = 0;
      if (!o->json)
        std::printf("%-12s %14s  %-8s %10s %10s %9s\n", "material", "positions", "status", "peak mem", "disk",
                    "time");
      for (const TableReport& r : *plan) {
        const bool build = r.action == TableReport::Action::Planned;
        if (build) {
          total += r.positions;
          disk += r.predicted.disk_bytes;
          peak = std::max(peak, r.predicted.peak_bytes);
          spill = std::max(spill, r.predicted.spill_bytes);
          seconds += r.predicted.seconds;
        }
        if (o->json) {
          nlohmann::json j = {{"material", r.material.name()}, {"positions", r.positions}, {"status", action_name(r.action)}};
          if (build)
            j["predicted"] = {{"peak_memory_bytes", r.predicted.peak_bytes}, {"disk_bytes", r.predicted.disk_bytes},
                              {"temporary_disk_bytes", r.predicted.spill_bytes}, {"seconds", r.predicted.seconds}};
          if (build && opt.ranks > 1) {
            j["rank"] = r.rank == RankJob::kAllRanks ? Json("all") : Json(r.rank);
            j["predicted"]["start_seconds"] = r.predicted.start;
            j["predicted"]["finish_seconds"] = r.predicted.finish;
            if (r.rank == RankJob::kAllRanks) j["predicted"]["peak_memory_bytes_other_ranks"] = r.predicted.peak_bytes_other;
          }
          out.push_back(j);
        } else if (build) {
          std::printf("%-12s %14llu  %-8s %10s %10s %9s%s\n", r.material.name().c_str(),
                      static_cast<unsigned long long>(r.positions), action_name(r.action),
                      format_bytes(r.predicted.peak_bytes).c_str(), format_bytes(r.predicted.disk_bytes).c_str(),
                      human_seconds(r.predicted.seconds).c_str(), r.spilled ? "  (levels on disk)" : "");
          if (opt.ranks > 1)
            std::printf("%-12s %14s  %s, from %s to %s\n", "", "",
                        r.rank == RankJob::kAllRanks ? "split among every rank" : ("rank " + std::to_string(r.rank)).c_str(),
                        human_seconds(r.predicted.start).c_str(), human_seconds(r.predicted.finish).c_str());
        } else {
          std::printf("%-12s %14llu  %-8s\n", r.material.name().c_str(), static_cast<unsigned long long>(r.positions),
                      action_name(r.action));
        }
      }
      if (o->json) {
        Json j = generate_json(*rules, o->out, out);
        j["threads"] = opt.threads;
        j["metrics"] = metrics_name(opt.metrics);
        j["compression"] = compression_name(opt.compression);
        j["memory_budget_bytes"] = opt.memory_budget;
        j["total"] = {{"positions", total}, {"peak_memory_bytes", peak}, {"disk_bytes", disk},
                      {"temporary_disk_bytes", spill}, {"seconds", seconds}};
        if (opt.ranks > 1) show_rank_plan(*plan, opt.ranks, true, j);
        std::cout << j.dump(2) << "\n";
      } else {
        std::printf("%zu tables, %llu positions to build with %d threads (%s): peak memory %s (budget %s), disk %s",
                    plan->size(), static_cast<unsigned long long>(total), opt.threads,
                    (metrics_name(opt.metrics) + (opt.compression == Compression::Small ? ", small compression" : ""))
                        .c_str(),
                    format_bytes(peak).c_str(), format_bytes(opt.memory_budget).c_str(), format_bytes(disk).c_str());
        if (spill) std::printf(" (+%s temporary)", format_bytes(spill).c_str());
        std::printf(", time about %s on this machine\n", human_seconds(seconds).c_str());
        if (opt.ranks > 1) {
          Json unused;
          show_rank_plan(*plan, opt.ranks, false, unused);
        }
      }
      rc = 0;
      return;
    }
    if (const std::string note = shared_folder_note(*rules, o->out); !note.empty() && !o->json && speaks)
      std::printf("%s\n", note.c_str());
    ProgressBar bar;
    GenerateCallbacks cb;
    cb.notice = [&](const std::string& text) {
      bar.finish();
      std::cerr << "damka generate: " << text << "\n";
    };
    if (speaks) cb.progress = [&](const Progress& p) {
      char pct[16];
      std::snprintf(pct, sizeof pct, "%.0f%%", p.total ? 100.0 * double(p.done) / double(p.total) : 100.0);
      bar.update_run(static_cast<double>(p.overall_done), static_cast<double>(p.overall_total), p.elapsed, "positions",
                     "table " + std::to_string(p.table_number) + "/" + std::to_string(p.tables_total) + " " +
                         p.material.name() + " " + pct);
    };
    double total_seconds = 0;
    std::uint64_t built_positions = 0, wdl_bytes = 0, all_positions = 0;
    if (!o->json && speaks)
      std::printf("%-10s %-7s %11s %9s %9s %9s %6s %8s %10s %8s\n", "material", "status", "positions", "wins",
                  "draws", "losses", "maxDTW", "seconds", "pos/s", "pos/B");
    const auto show = [&](const TableReport& r) {
      bar.finish();
      const SideCounts& w = r.white_to_move;
      const SideCounts& b = r.black_to_move;
      const double rate = r.seconds > 0 ? r.positions / r.seconds : 0;
      all_positions += r.positions;
      wdl_bytes += r.bytes[0];
      if (r.action == TableReport::Action::Built) {
        total_seconds += r.seconds;
        built_positions += r.positions;
      }
      if (o->json) {
        nlohmann::json j = {{"material", r.material.name()}, {"status", action_name(r.action)},
                            {"positions", r.positions},
                            {"bytes", {{"wdl", r.bytes[0]}, {"dtw", r.bytes[1]}, {"dtc", r.bytes[2]}}}};
        if (r.action == TableReport::Action::Built) {
          j["seconds"] = r.seconds;
          j["white_to_move"] = side_json(w);
          if (!r.material.is_symmetric()) j["black_to_move"] = side_json(b);
          j["levels_on_disk"] = r.spilled;
          j["resident_bytes"] = r.resident_bytes;
        }
        out.push_back(j);
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
                  static_cast<unsigned long long>(w.losses + b.losses), std::max(w.longest_win, b.longest_win),
                  r.seconds, human_count(rate).c_str(), r.bytes[0] ? double(r.positions) / r.bytes[0] : 0.0);
      if (on_ranks)
        std::printf("%-10s   built by %s\n", "",
                    r.rank == RankJob::kAllRanks ? "every rank (split)" : ("rank " + std::to_string(r.rank)).c_str());
      std::printf("%-10s   white to move: %llu W / %llu D / %llu L", "", static_cast<unsigned long long>(w.wins),
                  static_cast<unsigned long long>(w.draws), static_cast<unsigned long long>(w.losses));
      if (!r.material.is_symmetric())
        std::printf(";  black to move: %llu W / %llu D / %llu L", static_cast<unsigned long long>(b.wins),
                    static_cast<unsigned long long>(b.draws), static_cast<unsigned long long>(b.losses));
      std::printf("\n");
      std::fflush(stdout);
    };
    // On several ranks, each prints the tables it builds as it goes; the
    // JSON (rank 0) is made from every rank's reports at the end.
    if (!(on_ranks && o->json)) cb.table_done = show;
    const auto wall0 = std::chrono::steady_clock::now();
    auto result = generate(*rules, opt, cb);
    bar.finish();
    if (!result) {
      if (on_ranks) {  // the other ranks may wait for this one: end the job
        const std::string prefix = result.message().rfind("rank ", 0) == 0 ? "" : rank_prefix(cluster.get());
        report.fail(1, prefix + result.message());
        std::fflush(stdout);
        cluster->abort(1);
      }
      rc = report.fail(1, result.message());
      return;
    }
    if (on_ranks) {
      if (!speaks) {
        rc = 0;
        return;
      }
      built_positions = wdl_bytes = all_positions = 0;
      out = nlohmann::json::array();
      for (const TableReport& r : *result) {
        if (o->json) {
          show(r);  // adds to the counts
          continue;
        }
        all_positions += r.positions;
        wdl_bytes += r.bytes[0];
        if (r.action == TableReport::Action::Built) built_positions += r.positions;
      }
      total_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
      opt.threads *= cluster->size();  // the summary's "per thread": every rank's threads
    }
    if (o->json) {
      Json j = generate_json(*rules, o->out, out);
      j["seconds"] = total_seconds;
      j["built_positions"] = built_positions;
      j["threads"] = opt.threads;
      j["metrics"] = metrics_name(opt.metrics);
      j["compression"] = compression_name(opt.compression);
      if (on_ranks) j["ranks"] = cluster->size();
      std::cout << j.dump(2) << "\n";
    } else {
      std::printf("%zu tables (%s positions) in %s; built %s positions in %.1f s (%s pos/s, %s pos/s per thread); "
                  "WDL %.1f positions per byte\n",
                  result->size(), human_count(double(all_positions)).c_str(), o->out.c_str(),
                  human_count(double(built_positions)).c_str(), total_seconds,
                  human_count(total_seconds > 0 ? built_positions / total_seconds : 0).c_str(),
                  human_count(total_seconds > 0 ? built_positions / total_seconds / opt.threads : 0).c_str(),
                  wdl_bytes ? double(all_positions) / wdl_bytes : 0.0);
    }
    rc = 0;
  });
}

}  // namespace damka::cli
