// Many threads probing one Tablebase at once (fresh, so files are opened
// concurrently, with a small cache, so blocks are evicted and read again
// concurrently) give exactly the answers of a single-threaded run.  Meant to
// be run under ThreadSanitizer too (cmake -DDAMKA_SANITIZE=thread).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "damka/probe.hpp"
#include "damka/slots.hpp"
#include "probe/probe_fixtures.hpp"

namespace damka::probe_test {
namespace {

constexpr int kThreads = 4;
constexpr Metric kMetrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};

std::vector<Position> sample(const std::vector<const char*>& materials, std::uint64_t per_material) {
  std::vector<Position> out;
  for (const char* name : materials) {
    const MaterialIndex idx(mat(name));
    const std::uint64_t n = table_slots(idx);
    const std::uint64_t step = std::max<std::uint64_t>(1, n / per_material);
    for (std::uint64_t slot = 0; slot < n; slot += step) {
      const Position p = position_at(idx, slot);
      out.push_back(p);
      out.push_back(p.flipped());
    }
  }
  return out;
}

bool same(const std::vector<MoveValue>& a, const std::vector<MoveValue>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!a[i].move.same_result(b[i].move) || a[i].dtw != b[i].dtw || a[i].dtc != b[i].dtc ||
        a[i].dtc_known != b[i].dtc_known)
      return false;
  return true;
}

TEST(ProbeStress, ThreadsAgreeWithOneThread) {
  const Rules& r = rules_of(Variant::Russian);
  const auto& dir = tables(Variant::Russian, 3, mat("3Kv1K"));
  const std::vector<Position> positions = sample({"2Kv1K", "1K1Mv1K", "2Mv1M", "1Kv1M", "3Kv1K"}, 6000);

  // The single-threaded answers.
  auto ref_tb = Tablebase::open(r, dir);
  ASSERT_TRUE(ref_tb.ok());
  std::vector<ProbeResult> ref(positions.size() * 3);
  std::vector<std::vector<MoveValue>> ref_moves(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i) {
    for (int m = 0; m < 3; ++m) {
      ref[3 * i + m] = (*ref_tb)->probe(positions[i], kMetrics[m]);
      ASSERT_TRUE(ref[3 * i + m].ok());
    }
    if (i % 16 == 0) {
      ASSERT_EQ((*ref_tb)->probe_moves(positions[i], ref_moves[i]), ProbeStatus::Ok);
    }
  }

  // The same from several threads at once, each in its own order, with a
  // cache far smaller than the tables and conditional probes mixed in.
  TablebaseOptions opt;
  opt.cache_bytes = 160 << 10;
  auto tb = Tablebase::open(r, dir, opt);
  ASSERT_TRUE(tb.ok());
  std::atomic<std::uint64_t> wrong{0}, probes{0}, conditional_hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::size_t n = positions.size();
      std::vector<MoveValue> mv;
      std::uint64_t local = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = (t % 2 == 0) ? (k * (2 * t + 1) + t * 997) % n : n - 1 - k;
        for (int m = 0; m < 3; ++m) {
          const bool cond = (k + m) % 5 == 0;
          const ProbeResult got = (*tb)->probe(positions[i], kMetrics[m], cond ? ProbeMode::Conditional : ProbeMode::Normal);
          ++local;
          if (cond && got.status == ProbeStatus::NotCached) continue;
          if (cond) conditional_hits.fetch_add(1, std::memory_order_relaxed);
          if (got.status != ref[3 * i + m].status || got.value != ref[3 * i + m].value) wrong.fetch_add(1);
        }
        if (i % 16 == 0) {
          if ((*tb)->probe_moves(positions[i], mv) != ProbeStatus::Ok || !same(mv, ref_moves[i])) wrong.fetch_add(1);
        }
      }
      probes.fetch_add(local);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(probes.load(), kThreads * positions.size() * 3);
  EXPECT_GT(conditional_hits.load(), 0u);
  const CacheStats st = (*tb)->cache_stats();
  EXPECT_LE(st.bytes, opt.cache_bytes);
  EXPECT_GT(st.reads, st.blocks);
  EXPECT_TRUE((*tb)->errors().empty());
  std::printf("%d threads, %llu probes, cache: %llu hits, %llu misses, %llu block reads\n", kThreads,
              static_cast<unsigned long long>(probes.load()), static_cast<unsigned long long>(st.hits),
              static_cast<unsigned long long>(st.misses), static_cast<unsigned long long>(st.reads));
}

// Threads that meet the same damaged block at once: one of them reports it.
TEST(ProbeStress, CorruptTableReportedOnceAcrossThreads) {
  const Rules& r = rules_of(Variant::Russian);
  const auto dir = copy_tables(tables(Variant::Russian, 3), r, "stress_corrupt");
  const auto file = table_path(dir, r, mat("2Kv1K"), Metric::DTW);
  // Damage the last byte of the data section (inside the last block).
  flip_byte(file, std::filesystem::file_size(file) - 17);
  std::atomic<int> callbacks{0};
  TablebaseOptions opt;
  opt.on_error = [&](const std::string&) { callbacks.fetch_add(1); };
  auto tb = Tablebase::open(r, dir, opt);
  ASSERT_TRUE(tb.ok());
  const std::vector<Position> positions = sample({"2Kv1K"}, 100000);
  std::atomic<int> corrupt{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t k = 0; k < positions.size(); ++k) {
        const ProbeResult got = (*tb)->probe(positions[positions.size() - 1 - ((k + 31 * t) % positions.size())], Metric::DTW);
        if (got.status == ProbeStatus::Corrupt) corrupt.fetch_add(1);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(corrupt.load(), 1);
  EXPECT_EQ(callbacks.load(), 1);
  EXPECT_EQ((*tb)->errors().size(), 1u);
}

}  // namespace
}  // namespace damka::probe_test
