// The list schedule of a generate on several ranks (rank_plan.hpp).
#include "damka/rank_plan.hpp"

#include <algorithm>

#include "damka/slots.hpp"
#include "damka/solver.hpp"

namespace damka {

std::vector<std::size_t> needed_indexes(const std::vector<Material>& order, std::size_t i) {
  std::vector<std::size_t> out;
  for (const Material& s : successors(order[i])) {
    const auto it = std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i), s.canonical());
    if (it != order.begin() + static_cast<std::ptrdiff_t>(i)) out.push_back(static_cast<std::size_t>(it - order.begin()));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

RankPlan plan_ranks(const std::vector<Material>& order, const std::vector<bool>& build, int ranks,
                    std::optional<std::uint64_t> split_above) {
  ranks = std::max(1, ranks);
  RankPlan plan;
  plan.busy.assign(static_cast<std::size_t>(ranks), 0);
  std::vector<double> free_at(static_cast<std::size_t>(ranks), 0), finish(order.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (!build[i]) continue;
    const Material& m = order[i];
    const double cost = static_cast<double>(table_slots(m));
    double ready = 0;
    for (std::size_t d : needed_indexes(order, i)) ready = std::max(ready, finish[d]);
    // One rank: the first free one (the lowest on a tie).
    int best = 0;
    for (int r = 1; r < ranks; ++r)
      if (std::max(free_at[r], ready) < std::max(free_at[best], ready)) best = r;
    const double one_start = std::max(free_at[best], ready), one_end = one_start + cost;
    // Every rank.
    const double all_start = std::max(ready, *std::max_element(free_at.begin(), free_at.end()));
    const double exchange = m.men() > 0 ? kExchangeCostPerSlot : kKingsOnlyExchangeCostPerSlot;
    const double all_end = all_start + cost / ranks + exchange * cost + kSplitFixedCost;
    const bool splittable = ranks > 1;  // kings-only materials too: a shared sweep
    const bool split = splittable && (split_above ? table_slots(m) >= *split_above : all_end < one_end);
    RankJob job;
    job.index = i;
    if (split) {
      job.rank = RankJob::kAllRanks;
      job.start = all_start;
      job.finish = all_end;
      for (int r = 0; r < ranks; ++r) {
        free_at[r] = all_end;
        plan.busy[r] += all_end - all_start;
      }
    } else {
      job.rank = best;
      job.start = one_start;
      job.finish = one_end;
      free_at[best] = one_end;
      plan.busy[best] += cost;
    }
    finish[i] = job.finish;
    plan.finish = std::max(plan.finish, job.finish);
    plan.jobs.push_back(job);
  }
  return plan;
}

}  // namespace damka
