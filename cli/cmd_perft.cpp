// damka perft: leaf counts from a position, with the speed.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "common.hpp"
#include "damka/movegen.hpp"
#include "damka/notation.hpp"
#include "damka/rules.hpp"

namespace damka::cli {

void register_perft(CLI::App& app, int& rc) {
  auto* cmd = app.add_subcommand("perft", "Count the move tree's leaves at each depth (checks the move generator)");
  struct Opts {
    std::string variant = "russian";
    int depth = 6;
    std::string fen;
    bool paths = false, json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("-d,--depth", o->depth, "Deepest depth to count (plies)")->capture_default_str()->check(CLI::Range(1, 30));
  cmd->add_option("--fen", o->fen, "Start from this position (PDN FEN) instead of the initial one");
  cmd->add_flag("--paths", o->paths, "Count every capture path separately (default: identical moves merged)");
  cmd->add_flag("--json", o->json, "Print the counts as JSON on stdout");
  cmd->callback([o, &rc] {
    Report report("perft", o->json);
    const Rules* r = lookup_variant(report, o->variant, rc);
    if (!r) return;
    report.set("variant", std::string(r->name));
    Position p = start_position(*r);
    if (!o->fen.empty()) {
      auto parsed = parse_fen(*r, o->fen);
      if (!parsed) {
        rc = report.fail(2, "bad FEN '" + o->fen + "': " + parsed.message());
        return;
      }
      p = *parsed;
    }
    const MoveMode mode = o->paths ? MoveMode::AllPaths : MoveMode::Merged;
    const char* mode_text = o->paths ? "every capture path" : "identical moves merged";
    if (!o->json) {
      std::printf("%s perft from %s (%s)\n", std::string(r->display_name).c_str(), to_fen(*r, p).c_str(), mode_text);
      std::printf("%5s %16s %10s %14s\n", "depth", "leaves", "seconds", "leaves/s");
    }
    Json depths = Json::array();
    for (int d = 1; d <= o->depth; ++d) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::uint64_t n = perft(*r, p, d, mode);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (o->json) {
        depths.push_back({{"depth", d}, {"leaves", n}, {"seconds", s}, {"leaves_per_second", s > 0 ? n / s : 0.0}});
      } else {
        std::printf("%5d %16llu %10.3f %14.0f\n", d, static_cast<unsigned long long>(n), s, s > 0 ? n / s : 0.0);
        std::fflush(stdout);
      }
    }
    if (o->json) {
      Json j = report.object();
      j["fen"] = to_fen(*r, p);
      j["mode"] = o->paths ? "paths" : "merged";
      j["depths"] = depths;
      std::cout << j.dump(2) << "\n";
    }
    rc = 0;
  });
}

}  // namespace damka::cli
