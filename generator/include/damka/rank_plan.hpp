// Who builds what in a generate shared by several ranks (cluster.hpp).
//
// A list schedule over the materials to build, in build order: each goes to
// the rank that can start it first (its successors finished, the rank free)
// or, when that finishes sooner (or it has at least `split_above` positions),
// to every rank at once with its levels' units split among them
// (LevelSplit, engine.hpp).  Costs are in positions (a position costs the
// same everywhere), so the plan does not depend on the machine's speed and
// every rank computes the same plan from the same inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "damka/material.hpp"

namespace damka {

struct RankJob {
  std::size_t index = 0;  // in the build order given to plan_ranks
  int rank = 0;           // the rank that builds it, or kAllRanks
  // Predicted, in positions solved by one rank: when it starts and ends.
  double start = 0, finish = 0;
  static constexpr int kAllRanks = -1;  // split among every rank; rank 0 writes the files
};

struct RankPlan {
  std::vector<RankJob> jobs;  // the materials to build, in build order
  std::vector<double> busy;   // per rank: positions-time spent building
  double finish = 0;          // when the last job ends
};

// The cost of a split job: positions / ranks plus this much per slot for
// exchanging the levels' values between the ranks, plus a fixed cost (the
// per-level exchanges' latency, each rank's successor caches warming up) that
// keeps small materials on one rank.
inline constexpr double kExchangeCostPerSlot = 0.05;
// A kings-only material's shared sweep sends every move that leads into
// another rank's chunks (about 20 per position and pass): measured with two
// ranks of one thread on one machine (Russian 4Kv2K), its sweep took 0.70
// of one rank's, so cost / 2 + 0.2 * cost.
inline constexpr double kKingsOnlyExchangeCostPerSlot = 0.2;
inline constexpr double kSplitFixedCost = 2e6;

// order: canonical materials in build order (each one's successors come
// before it); build[i]: whether order[i] is to be built (the others are
// present).  split_above: split every splittable material of at least this
// many positions and no other; nullopt: split where the plan finishes
// sooner.  Every material is splittable: a kings-only one (one unit) by a
// sweep that every rank shares (UnitSolver::solve_sweep).
// Deterministic.  Cost: O(materials * (ranks + successors)).
RankPlan plan_ranks(const std::vector<Material>& order, const std::vector<bool>& build, int ranks,
                    std::optional<std::uint64_t> split_above);

// The indexes in `order` of the materials order[i] converts into.
std::vector<std::size_t> needed_indexes(const std::vector<Material>& order, std::size_t i);

}  // namespace damka
