// The engine's LevelSplit (engine.hpp) without MPI: a material built by
// three "processes" (threads) that each solve a third of every level and
// merge, gives the writer exactly the values of a build by one; a failure
// on one stops every one; and the plan of a run on several ranks
// (rank_plan.hpp) respects dependencies and the split rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <set>
#include <thread>

#include "damka/engine.hpp"
#include "damka/rank_plan.hpp"
#include "damka/rules.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/table_file.hpp"
#include "damka/value_oracle.hpp"
#include "generator/generate_helpers.hpp"

namespace damka {
namespace {

using test::CollectSink;

// What several processes share: a barrier and one slot per part.
struct Shared {
  explicit Shared(int n)
      : parts(n), sync(n), data(static_cast<std::size_t>(n)), flags(static_cast<std::size_t>(n)),
        box(static_cast<std::size_t>(n), std::vector<std::vector<std::uint64_t>>(static_cast<std::size_t>(n))) {}
  int parts;
  std::barrier<> sync;
  std::vector<std::vector<std::uint16_t>> data;
  std::vector<int> flags;
  std::vector<std::vector<std::vector<std::uint64_t>>> box;  // box[to][from]: exchange()'s entries
};

class ThreadSplit : public LevelSplit {
 public:
  ThreadSplit(Shared& s, int part, int fail_at_level = -1) : s_(s), part_(part), fail_at_(fail_at_level) {}
  int parts() const override { return s_.parts; }
  int part() const override { return part_; }
  bool writer() const override { return part_ == 0; }
  Status agree(bool failed) override {
    const bool injected = level_++ == fail_at_;
    s_.flags[static_cast<std::size_t>(part_)] = failed || injected;
    s_.sync.arrive_and_wait();
    int n = 0;
    for (int f : s_.flags) n += f;
    s_.sync.arrive_and_wait();
    if (injected) return Error("injected failure");
    if (n > 0 && !failed) return Error("another part failed");
    return {};
  }
  Status merge(std::span<std::uint16_t> codes) override {
    ++merges;
    s_.data[static_cast<std::size_t>(part_)].assign(codes.begin(), codes.end());
    s_.sync.arrive_and_wait();
    for (std::size_t i = 0; i < codes.size(); ++i) {
      std::uint16_t v = 0xFFFF;
      for (const auto& d : s_.data) v &= d[i];
      codes[i] = v;
    }
    s_.sync.arrive_and_wait();
    return {};
  }
  Status exchange(std::vector<std::vector<std::uint64_t>>& out, std::vector<std::uint64_t>& in, bool failed) override {
    if (Status s = agree(failed); !s.ok() || failed) return s;
    const auto me = static_cast<std::size_t>(part_);
    for (std::size_t k = 0; k < out.size(); ++k)
      if (k != me) {
        s_.box[k][me] = out[k];
        sent += out[k].size();
      }
    s_.sync.arrive_and_wait();
    in.clear();
    for (std::size_t k = 0; k < s_.box.size(); ++k)
      if (k != me) in.insert(in.end(), s_.box[me][k].begin(), s_.box[me][k].end());
    s_.sync.arrive_and_wait();
    return {};
  }
  int count(bool flag) override {
    s_.flags[static_cast<std::size_t>(part_)] = flag;
    s_.sync.arrive_and_wait();
    int n = 0;
    for (int f : s_.flags) n += f;
    s_.sync.arrive_and_wait();
    return n;
  }
  int merges = 0;
  std::uint64_t sent = 0;  // entries exchange() sent to other parts

 private:
  Shared& s_;
  int part_, fail_at_;
  int level_ = 0;
};

class LevelSplitTest : public ::testing::TestWithParam<Material> {};

// The materials m converts into, solved, as the engine reads them.
struct SolvedSuccessors {
  explicit SolvedSuccessors(const Material& m)
      : solver(rules_of(Variant::Russian)), succ(test::solved_successors(solver, m)) {}
  Solver solver;
  MemorySuccessors succ;
};

TEST_P(LevelSplitTest, ThreePartsGiveTheWriterTheValuesOfOneBuild) {
  const Rules& rules = rules_of(Variant::Russian);
  const Material m = GetParam();
  const SolvedSuccessors solved(m);
  const MemorySuccessors& succ = solved.succ;
  BuildOptions bo;
  CollectSink whole;
  BuildStats whole_stats;
  ASSERT_TRUE(build_material(rules, m, succ, whole, bo, whole_stats).ok());

  constexpr int kParts = 3;
  Shared shared(kParts);
  std::vector<CollectSink> sinks(kParts);
  std::vector<Status> status(kParts);
  std::vector<BuildStats> stats(kParts);
  std::vector<std::unique_ptr<ThreadSplit>> splits;
  for (int p = 0; p < kParts; ++p) splits.push_back(std::make_unique<ThreadSplit>(shared, p));
  std::vector<std::thread> threads;
  for (int p = 0; p < kParts; ++p)
    threads.emplace_back([&, p] {
      BuildOptions o;
      o.threads = 1 + p % 2;  // threads inside a part as in one build
      o.split = splits[p].get();
      status[p] = build_material(rules, m, succ, sinks[p], o, stats[p]);
    });
  for (auto& t : threads) t.join();
  for (int p = 0; p < kParts; ++p) ASSERT_TRUE(status[p].ok()) << status[p].message();
  EXPECT_GT(splits[0]->merges, 0);
  if (m.men() == 0) {  // a kings-only material: one sweep, its moves between the parts' chunks exchanged
    for (int p = 0; p < kParts; ++p) EXPECT_GT(splits[p]->sent, 0u) << "part " << p;
  }
  EXPECT_EQ(sinks[0].codes, whole.codes);
  EXPECT_EQ(stats[0].positions, whole_stats.positions);
  EXPECT_EQ(stats[0].side[0].wins, whole_stats.side[0].wins);
  for (int p = 1; p < kParts; ++p) EXPECT_TRUE(sinks[p].codes.empty()) << "part " << p << " wrote values";
}

TEST_P(LevelSplitTest, AFailedPartStopsEveryPart) {
  const Rules& rules = rules_of(Variant::Russian);
  const Material m = GetParam();
  const SolvedSuccessors solved(m);
  const MemorySuccessors& succ = solved.succ;
  constexpr int kParts = 3;
  Shared shared(kParts);
  std::vector<std::unique_ptr<ThreadSplit>> splits;
  for (int p = 0; p < kParts; ++p) splits.push_back(std::make_unique<ThreadSplit>(shared, p, p == 2 ? 1 : -1));
  std::vector<Status> status(kParts);
  std::vector<CollectSink> sinks(kParts);
  std::vector<std::thread> threads;
  for (int p = 0; p < kParts; ++p)
    threads.emplace_back([&, p] {
      BuildOptions o;
      o.split = splits[p].get();
      BuildStats st;
      status[p] = build_material(rules, m, succ, sinks[p], o, st);
    });
  for (auto& t : threads) t.join();
  EXPECT_NE(status[2].message().find("injected failure"), std::string::npos) << status[2].message();
  for (int p = 0; p < 2; ++p) EXPECT_NE(status[p].message().find("another part failed"), std::string::npos) << p;
  EXPECT_TRUE(sinks[0].codes.empty());
}

// With mark_derived (what table files get), the stream holds kDontCareCode
// exactly at the positions whose side to move must capture, in every pass,
// and the true values elsewhere; the statistics still count true values; a
// split (whose derived bitmaps are merged like the values) streams the same.
TEST_P(LevelSplitTest, MarkedDerivedPositionsAreTheCapturePositions) {
  const Rules& rules = rules_of(Variant::Russian);
  const Material m = GetParam();
  const SolvedSuccessors solved(m);
  const MemorySuccessors& succ = solved.succ;
  BuildOptions plain;
  plain.metrics = MetricSet{true, true, false};
  CollectSink truth;
  BuildStats truth_stats;
  ASSERT_TRUE(build_material(rules, m, succ, truth, plain, truth_stats).ok());
  BuildOptions marked = plain;
  marked.mark_derived = true;
  marked.threads = 2;
  CollectSink whole;
  BuildStats whole_stats;
  ASSERT_TRUE(build_material(rules, m, succ, whole, marked, whole_stats).ok());
  ASSERT_EQ(whole.codes.size(), 2u);
  const MaterialIndex index(m);
  std::uint64_t derived = 0;
  for (std::size_t i = 0; i < truth.codes[0].size(); ++i) {
    const bool d = is_derived(rules, position_at(index, i));
    derived += d;
    for (std::size_t k = 0; k < 2; ++k)
      ASSERT_EQ(whole.codes[k][i], d ? kDontCareCode : truth.codes[k][i]) << "pass " << k << " slot " << i;
  }
  EXPECT_GT(derived, 0u);
  for (int side = 0; side < 2; ++side) {
    EXPECT_EQ(whole_stats.side[side].wins, truth_stats.side[side].wins);
    EXPECT_EQ(whole_stats.side[side].draws, truth_stats.side[side].draws);
    EXPECT_EQ(whole_stats.side[side].losses, truth_stats.side[side].losses);
    EXPECT_EQ(whole_stats.side[side].longest_win, truth_stats.side[side].longest_win);
    EXPECT_EQ(whole_stats.side[side].longest_win_dtc, truth_stats.side[side].longest_win_dtc);
  }

  constexpr int kParts = 3;
  Shared shared(kParts);
  std::vector<CollectSink> sinks(kParts);
  std::vector<Status> status(kParts);
  std::vector<std::unique_ptr<ThreadSplit>> splits;
  for (int p = 0; p < kParts; ++p) splits.push_back(std::make_unique<ThreadSplit>(shared, p));
  std::vector<std::thread> threads;
  for (int p = 0; p < kParts; ++p)
    threads.emplace_back([&, p] {
      BuildOptions o = marked;
      o.threads = 1 + p % 2;
      o.split = splits[p].get();
      BuildStats st;
      status[p] = build_material(rules, m, succ, sinks[p], o, st);
    });
  for (auto& t : threads) t.join();
  for (int p = 0; p < kParts; ++p) ASSERT_TRUE(status[p].ok()) << status[p].message();
  EXPECT_EQ(sinks[0].codes, whole.codes);
}

// A symmetric material (units pair a configuration with its reversal), an
// asymmetric one, one with kings, and kings-only ones (one unit, whose sweep
// the parts share), symmetric and not.
INSTANTIATE_TEST_SUITE_P(Materials, LevelSplitTest,
                         ::testing::Values(Material{2, 0, 2, 0}, Material{2, 0, 1, 0}, Material{1, 1, 1, 0},
                                           Material{0, 2, 0, 1}, Material{0, 2, 0, 2}),
                         [](const auto& info) { return info.param.name(); });

TEST(RankPlan, EveryMaterialOnceAfterWhatItNeeds) {
  const std::vector<Material> order = build_order(5);
  std::vector<bool> build(order.size(), true);
  for (std::size_t i = 0; i < order.size(); i += 7) build[i] = false;  // some present
  for (int ranks : {1, 2, 3, 8}) {
    for (std::optional<std::uint64_t> above : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{0},
                                               std::optional<std::uint64_t>{100000}}) {
      const RankPlan plan = plan_ranks(order, build, ranks, above);
      const RankPlan again = plan_ranks(order, build, ranks, above);  // deterministic: every rank plans alike
      ASSERT_EQ(again.jobs.size(), plan.jobs.size());
      for (std::size_t j = 0; j < plan.jobs.size(); ++j)
        EXPECT_TRUE(again.jobs[j].index == plan.jobs[j].index && again.jobs[j].rank == plan.jobs[j].rank);
      std::set<std::size_t> seen;
      std::vector<double> finish(order.size(), 0);
      for (const RankJob& job : plan.jobs) {
        ASSERT_TRUE(build[job.index]);
        EXPECT_TRUE(seen.insert(job.index).second);
        const Material& m = order[job.index];
        EXPECT_TRUE(job.rank == RankJob::kAllRanks || (job.rank >= 0 && job.rank < ranks));
        if (ranks == 1) {
          EXPECT_NE(job.rank, RankJob::kAllRanks) << m.name();
        }
        if (above && ranks > 1) {
          EXPECT_EQ(job.rank == RankJob::kAllRanks, table_slots(m) >= *above) << m.name();
        }
        for (std::size_t d : needed_indexes(order, job.index))
          if (build[d]) {
            EXPECT_LE(finish[d], job.start) << m.name() << " starts before " << order[d].name();
          }
        finish[job.index] = job.finish;
        EXPECT_LE(job.finish, plan.finish);
      }
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(std::count(build.begin(), build.end(), true)));
    }
  }
}

TEST(RankPlan, MoreRanksFinishSooner) {
  const std::vector<Material> order = build_order(6);
  const std::vector<bool> build(order.size(), true);
  const double one = plan_ranks(order, build, 1, std::nullopt).finish;
  const double four = plan_ranks(order, build, 4, std::nullopt).finish;
  EXPECT_LT(four, one / 2.5) << "1 rank " << one << ", 4 ranks " << four;
}

}  // namespace
}  // namespace damka
