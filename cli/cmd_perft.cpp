// damka perft: leaf counts from a position, with the speed.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.hpp"
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
    bool paths = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("-v,--variant", o->variant, "Variant: " + variant_names())->capture_default_str();
  cmd->add_option("-d,--depth", o->depth, "Deepest depth to count (plies)")->capture_default_str()->check(CLI::Range(1, 30));
  cmd->add_option("--fen", o->fen, "Start from this position (PDN FEN) instead of the initial one");
  cmd->add_flag("--paths", o->paths, "Count every capture path separately (default: identical moves merged)");
  cmd->callback([o, &rc] {
    const auto v = parse_variant(o->variant);
    if (!v) {
      std::cerr << "damka perft: unknown variant '" << o->variant << "' (known: " << variant_names() << ")\n";
      rc = 2;
      return;
    }
    const Rules& r = rules_of(*v);
    Position p = start_position(r);
    if (!o->fen.empty()) {
      auto parsed = parse_fen(r, o->fen);
      if (!parsed) {
        std::cerr << "damka perft: " << parsed.message() << "\n";
        rc = 2;
        return;
      }
      p = *parsed;
    }
    const MoveMode mode = o->paths ? MoveMode::AllPaths : MoveMode::Merged;
    std::printf("%s perft from %s (%s)\n", std::string(r.display_name).c_str(), to_fen(r, p).c_str(),
                o->paths ? "every capture path" : "identical moves merged");
    std::printf("%5s %16s %10s %14s\n", "depth", "leaves", "seconds", "leaves/s");
    for (int d = 1; d <= o->depth; ++d) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::uint64_t n = perft(r, p, d, mode);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("%5d %16llu %10.3f %14.0f\n", d, static_cast<unsigned long long>(n), s, s > 0 ? n / s : 0.0);
      std::fflush(stdout);
    }
    rc = 0;
  });
}

}  // namespace damka::cli
