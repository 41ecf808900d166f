// `damka generate` on several ranks (generate_ranks.hpp).
#include "generate_ranks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "damka/rank_plan.hpp"
#include "progress.hpp"

namespace damka::cli {

Expected<std::unique_ptr<Cluster>> join_launcher_job() {
  if (!launched_by_mpi()) return std::unique_ptr<Cluster>();
  if (!mpi_built()) {
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
    if (size == nullptr) size = std::getenv("PMI_SIZE");
    if (size != nullptr && std::atoi(size) > 1)
      return Error("started by mpirun with " + std::string(size) +
                   " ranks, but this damka was built without MPI: install libopenmpi-dev (scripts/deps.sh) and "
                   "rebuild, or run it without mpirun");
    return std::unique_ptr<Cluster>();
  }
  return join_mpi();
}

std::string rank_prefix(const Cluster* c) {
  if (c == nullptr || c->size() <= 1) return "";
  return "rank " + std::to_string(c->rank()) + " of " + std::to_string(c->size()) + " on " + c->host() + ": ";
}

void show_rank_plan(const std::vector<TableReport>& plan, int ranks, bool json, Json& j) {
  struct Share {
    std::vector<std::string> own, split;
    std::uint64_t peak = 0, positions = 0;
    double busy = 0;
  };
  std::vector<Share> share(static_cast<std::size_t>(ranks));
  double finish = 0;
  for (const TableReport& r : plan) {
    if (r.action != TableReport::Action::Planned) continue;
    finish = std::max(finish, r.predicted.finish);
    for (int k = 0; k < ranks; ++k) {
      Share& s = share[static_cast<std::size_t>(k)];
      if (r.rank == RankJob::kAllRanks) {
        s.split.push_back(r.material.name());
        s.peak = std::max(s.peak, k == 0 ? r.predicted.peak_bytes : r.predicted.peak_bytes_other);
        s.positions += r.positions / static_cast<std::uint64_t>(ranks);
        s.busy += r.predicted.finish - r.predicted.start;
      } else if (r.rank == k) {
        s.own.push_back(r.material.name());
        s.peak = std::max(s.peak, r.predicted.peak_bytes);
        s.positions += r.positions;
        s.busy += r.predicted.finish - r.predicted.start;
      }
    }
  }
  // At most 8 names, then how many more.
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < 8; ++i) out += (out.empty() ? "" : " ") + v[i];
    if (v.size() > 8) out += " and " + std::to_string(v.size() - 8) + " more";
    return out.empty() ? std::string("-") : out;
  };
  if (json) {
    Json a = Json::array();
    for (int k = 0; k < ranks; ++k) {
      const Share& s = share[static_cast<std::size_t>(k)];
      a.push_back({{"rank", k}, {"materials", s.own}, {"split_materials", s.split}, {"positions", s.positions},
                   {"peak_memory_bytes", s.peak}, {"busy_seconds", s.busy}});
    }
    j["ranks"] = a;
    j["finish_seconds"] = finish;
    return;
  }
  std::printf("\nPlan for %d ranks (split: the material's levels are shared by every rank; rank 0 writes its files):\n",
              ranks);
  std::printf("%-5s %10s %10s %9s  %s\n", "rank", "positions", "peak mem", "busy", "materials");
  for (int k = 0; k < ranks; ++k) {
    const Share& s = share[static_cast<std::size_t>(k)];
    std::printf("%-5d %10s %10s %9s  %zu alone: %s\n", k, human_count(double(s.positions)).c_str(),
                format_bytes(s.peak).c_str(), human_seconds(s.busy).c_str(), s.own.size(), join(s.own).c_str());
  }
  std::printf("split among every rank: %zu materials: %s\n", share[0].split.size(), join(share[0].split).c_str());
  std::printf("all ranks done after about %s on machines like this one\n", human_seconds(finish).c_str());
}

}  // namespace damka::cli
