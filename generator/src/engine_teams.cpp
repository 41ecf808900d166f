// Teams side by side: a level of a few units, each solved by a team of
// threads (UnitSolver::solve_parallel), with the threads shared among
// several teams instead of all of them in one.  A team waits for its
// slowest thread at every distance bucket of a unit; the fewer its
// threads, the less they wait (engine.cpp: level_teams()).
//
// The teams other than the caller's run on std::threads: each is then an
// initial thread of its own to OpenMP, and its parallel regions make a
// team of their own, where a parallel region inside another would run on
// one thread unless nesting were switched on for the whole process.
#include <algorithm>
#include <atomic>
#include <system_error>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine_unit.hpp"

namespace damka::engine_detail {

void UnitSolver::solve_teams(std::span<const Unit> units, std::span<Scratch> scratch,
                             std::span<const std::unique_ptr<SuccessorReader>> readers, const LevelArrays* next,
                             LevelArrays& cur, bool edges, std::string& error,
                             const std::function<void(std::uint64_t)>& solved) const {
  const std::size_t teams = std::min({scratch.size(), readers.size(), units.size()});
  if (teams == 0) return;
  // Team t starts with unit t (teams <= units), then takes the next unit
  // not taken.
  std::atomic<std::size_t> taken{teams};
  std::atomic<bool> stopped{false};  // no unit is started after a failure
  std::atomic<std::uint64_t> positions{0};
  // Team t: readers [first, first + size), as even as the division allows;
  // it starts with its own unit and then units [also, also_end) (those of
  // teams that got no thread).  A failure sets `error` once (guarded()).
  auto run = [&](std::size_t t, std::size_t also, std::size_t also_end) {
    const std::size_t per = readers.size() / teams, extra = readers.size() % teams;
    const std::size_t first = t * per + std::min(t, extra), size = per + (t < extra ? 1 : 0);
    for (std::size_t i = t; i < units.size() && !stopped.load(); i = also < also_end ? also++ : taken.fetch_add(1)) {
      guarded(stopped, error, [&] {
        std::string why;
        solve_parallel(units[i], scratch[t], readers.subspan(first, size), next, cur, edges, why);
        if (!why.empty()) throw std::runtime_error(why);
        const std::uint64_t n = units[i].parts * L_.K;
        const std::uint64_t now = positions.fetch_add(n) + n;
        if (t == 0 && solved) solved(now);
      });
    }
  };
  std::vector<std::thread> others;
  others.reserve(teams - 1);
  std::size_t started = 1;
  for (; started < teams; ++started) {
    try {
      others.emplace_back(run, started, 0, 0);
    } catch (const std::system_error&) {
      break;  // no thread for this team: the caller's takes its first units
    }
  }
  run(0, started, teams);
  for (std::thread& th : others) th.join();
}

}  // namespace damka::engine_detail
