// damka perft: the count per depth (perft_command.hpp).
#include <chrono>

#include "perft_command.hpp"

namespace damka::cli {

void run_perft(const PerftCommandOptions& o, const PerftSetup& s, const std::function<void(const PerftDepth&)>& on_depth) {
  for (int d = 1; d <= o.depth; ++d) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t n = perft(*s.rules, s.start, d, s.mode);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    on_depth({d, n, seconds});
  }
}

}  // namespace damka::cli
