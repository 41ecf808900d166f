// damka generate: build every table up to N pieces for a variant.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common.hpp"
#include "damka/generate.hpp"
#include "progress.hpp"

namespace damka::cli {
namespace {

nlohmann::json side_json(const SideCounts& c) {
  return {{"wins", c.wins}, {"draws", c.draws}, {"losses", c.losses}, {"longest_win_plies", c.longest_win},
          {"longest_win_dtc_plies", c.longest_win_dtc}};
}

const char* action_name(TableReport::Action a) {
  return a == TableReport::Action::Built ? "built" : a == TableReport::Action::Skipped ? "present" : "to build";
}

}  // namespace

void register_generate(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("generate", "Build every table of up to N pieces (both sides present) for a variant");
  struct Opts {
    std::string variant = "russian";
    int pieces = 4;
    std::string out = "data/tables";
    int threads = 0;
    std::string material;
    bool dry_run = false, json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("-n,--pieces", o->pieces, "Largest number of pieces on the board")
      ->capture_default_str()->check(CLI::Range(2, 8));
  cmd->add_option("-o,--out", o->out, "Directory of tables (a subfolder per variant family)")->capture_default_str();
  cmd->add_option("-t,--threads", o->threads, "Threads (0 = all cores)")->capture_default_str()->check(CLI::Range(0, 256));
  cmd->add_option("-m,--material", o->material, "Build only this material and what it needs, e.g. 3Kv1K");
  cmd->add_flag("--dry-run", o->dry_run, "List what would be built, with sizes, and build nothing");
  cmd->add_flag("--json", o->json, "Print the summary as JSON on stdout");
  cmd->callback([o, &rc] {
    Report report("generate", o->json);
    auto rules = lookup_variant(report, o->variant, rc);
    if (!rules) return;
    report.set("variant", std::string(rules->name));
    report.set("folder", o->out);
    GenerateOptions opt;
    opt.max_pieces = o->pieces;
    opt.out = o->out;
    opt.threads = resolve_threads(o->threads);
    opt.dry_run = o->dry_run;
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
      opt.only = *m;
    }
    nlohmann::json out = nlohmann::json::array();
    if (o->dry_run) {
      auto plan = plan_generation(*rules, opt);
      if (!plan) {
        rc = report.fail(1, plan.message());
        return;
      }
      std::uint64_t total = 0;
      if (!o->json) std::printf("%-12s %14s  %s\n", "material", "positions", "status");
      for (const TableReport& r : *plan) {
        if (r.action == TableReport::Action::Planned) total += r.positions;
        if (o->json)
          out.push_back({{"material", r.material.name()}, {"positions", r.positions}, {"status", action_name(r.action)}});
        else
          std::printf("%-12s %14llu  %s\n", r.material.name().c_str(), static_cast<unsigned long long>(r.positions),
                      action_name(r.action));
      }
      if (o->json)
        std::cout << generate_json(*rules, o->out, out).dump(2) << "\n";
      else
        std::printf("%zu tables, %llu positions to build\n", plan->size(), static_cast<unsigned long long>(total));
      rc = 0;
      return;
    }
    if (const std::string note = shared_folder_note(*rules, o->out); !note.empty() && !o->json)
      std::printf("%s\n", note.c_str());
    ProgressBar bar;
    GenerateCallbacks cb;
    cb.progress = [&](const Progress& p) {
      bar.update("[" + std::to_string(p.table_number) + "/" + std::to_string(p.tables_total) + " " +
                     p.material.name() + "]",
                 static_cast<double>(p.done), static_cast<double>(p.total));
    };
    double total_seconds = 0;
    std::uint64_t built_positions = 0, wdl_bytes = 0, all_positions = 0;
    if (!o->json)
      std::printf("%-10s %-7s %11s %9s %9s %9s %6s %8s %10s %8s\n", "material", "status", "positions", "wins",
                  "draws", "losses", "maxDTW", "seconds", "pos/s", "pos/B");
    cb.table_done = [&](const TableReport& r) {
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
                            {"positions", r.positions}, {"seconds", r.seconds},
                            {"bytes", {{"wdl", r.bytes[0]}, {"dtw", r.bytes[1]}, {"dtc", r.bytes[2]}}},
                            {"white_to_move", side_json(w)}};
        if (!r.material.is_symmetric()) j["black_to_move"] = side_json(b);
        out.push_back(j);
        return;
      }
      std::printf("%-10s %-7s %11llu %9llu %9llu %9llu %6d %8.2f %10s %8.1f\n", r.material.name().c_str(),
                  action_name(r.action), static_cast<unsigned long long>(r.positions),
                  static_cast<unsigned long long>(w.wins + b.wins), static_cast<unsigned long long>(w.draws + b.draws),
                  static_cast<unsigned long long>(w.losses + b.losses), std::max(w.longest_win, b.longest_win),
                  r.seconds, human_count(rate).c_str(), r.bytes[0] ? double(r.positions) / r.bytes[0] : 0.0);
      std::printf("%-10s   white to move: %llu W / %llu D / %llu L", "", static_cast<unsigned long long>(w.wins),
                  static_cast<unsigned long long>(w.draws), static_cast<unsigned long long>(w.losses));
      if (!r.material.is_symmetric())
        std::printf(";  black to move: %llu W / %llu D / %llu L", static_cast<unsigned long long>(b.wins),
                    static_cast<unsigned long long>(b.draws), static_cast<unsigned long long>(b.losses));
      std::printf("\n");
      std::fflush(stdout);
    };
    auto result = generate(*rules, opt, cb);
    bar.finish();
    if (!result) {
      rc = report.fail(1, result.message());
      return;
    }
    if (o->json) {
      Json j = generate_json(*rules, o->out, out);
      j["seconds"] = total_seconds;
      j["built_positions"] = built_positions;
      j["threads"] = opt.threads;
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
