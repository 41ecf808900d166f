// An engine's use of the tables: 10 million random legal Russian positions
// of 2-6 pieces (captures included, either side to move, either colour
// orientation), each probed once for its WDL value through the public
// Tablebase API with a 64 MiB cache, by 1 and by 2 threads sharing one
// Tablebase (each thread probes its half).  A fresh Tablebase per run: its
// cache starts empty and the files are opened on first use (the OS page
// cache keeps them after the first run).  Reported: probes per second
// (items_per_second) and, as counters, the share of capture positions, the
// probes that did not answer (must be 0) and the cache's hit rate.
//
// Tables: $DAMKA_BENCH_TABLES, a folder of Russian tables (for example one
// `damka generate -v russian -n 5` wrote, plus some 6-piece materials).  The
// positions are drawn only from materials of 2-6 pieces whose WDL file is
// there together with the WDL files of every material they convert into
// (so every probe, a capture position's included, can be answered): first
// a material, uniformly among those, then a slot of its table, uniformly,
// then a colour flip with probability 1/2.  The seed is fixed, so the same
// folder gives the same positions.  The materials used are printed on
// stderr once.
//
//   DAMKA_BENCH_TABLES=/path/to/tables build/bench/engine_probe_bench
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "damka/probe.hpp"
#include "damka/slots.hpp"
#include "damka/solver.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"

namespace damka {
namespace {

constexpr std::size_t kPositions = 10'000'000;
constexpr std::size_t kCacheBytes = std::size_t{64} << 20;

const Rules& russian() { return rules_of(Variant::Russian); }

const char* tables_env() { return std::getenv("DAMKA_BENCH_TABLES"); }

bool has_wdl(const std::filesystem::path& dir, const Material& canonical) {
  std::error_code ec;
  return std::filesystem::is_regular_file(table_path(dir, russian(), canonical, Metric::WDL), ec);
}

// Materials of 2-6 pieces whose WDL file and its successors' are present.
std::vector<Material> usable_materials(const std::filesystem::path& dir) {
  std::vector<Material> out;
  for (const Material& m : build_order(6)) {
    if (!has_wdl(dir, m)) continue;
    bool complete = true;
    for (const Material& s : successors_closure(m)) complete = complete && has_wdl(dir, s);
    if (complete) out.push_back(m);
  }
  return out;
}

struct Workload {
  std::vector<Position> positions;
  double captures = 0;  // share of positions whose side to move must capture
  std::string error;
};

const Workload& workload() {
  static const Workload w = [] {
    Workload w;
    const char* env = tables_env();
    if (env == nullptr) {
      w.error = "set DAMKA_BENCH_TABLES to a folder of Russian tables (2-6 pieces)";
      return w;
    }
    const std::filesystem::path dir = tables_root(env, russian());
    const std::vector<Material> mats = usable_materials(dir);
    if (mats.empty()) {
      w.error = "no complete Russian WDL tables of 2-6 pieces in " + std::string(env);
      return w;
    }
    std::vector<MaterialIndex> index;
    int by_pieces[7] = {};
    std::string names;
    for (const Material& m : mats) {
      index.emplace_back(m);
      ++by_pieces[m.pieces()];
      if (m.pieces() == 6) names += " " + m.name();
    }
    std::fprintf(stderr, "engine_probe_bench: %zu materials from %s (", mats.size(), env);
    for (int n = 2; n <= 6; ++n) std::fprintf(stderr, "%s%d of %d pieces", n > 2 ? ", " : "", by_pieces[n], n);
    std::fprintf(stderr, "); 6 pieces:%s\n", names.empty() ? " none" : names.c_str());
    std::mt19937_64 rng(20261123);
    w.positions.reserve(kPositions);
    std::size_t captures = 0;
    while (w.positions.size() < kPositions) {
      const MaterialIndex& idx = index[rng() % index.size()];
      Position p = position_at(idx, rng() % table_slots(idx));
      if (rng() & 1) p = p.flipped();
      captures += has_capture(russian(), p);
      w.positions.push_back(p);
    }
    w.captures = static_cast<double>(captures) / static_cast<double>(kPositions);
    return w;
  }();
  return w;
}

// The run's Tablebase: made by thread 0 before the timed loop, read by the
// others only inside it (the loop starts after every thread's setup).
std::shared_ptr<const Tablebase> g_tb;  // NOLINT: benchmark fixture shared by the threads of one run

void BM_EngineProbeWdl(benchmark::State& state) {
  const Workload& w = workload();
  if (!w.error.empty()) {
    state.SkipWithError(w.error.c_str());
    return;
  }
  if (state.thread_index() == 0) {
    TablebaseOptions opt;
    opt.cache_bytes = kCacheBytes;
    auto tb = Tablebase::open(russian(), tables_env(), opt);
    g_tb.reset();
    if (tb)
      g_tb = std::shared_ptr<const Tablebase>(std::move(*tb));
    else
      state.SkipWithError(tb.message().c_str());  // every thread still meets the others at the loop
  }
  const std::size_t per = kPositions / static_cast<std::size_t>(state.threads());
  const Position* p = w.positions.data() + per * static_cast<std::size_t>(state.thread_index());
  std::shared_ptr<const Tablebase> tb;
  std::uint64_t not_ok = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    if (!tb && !(tb = g_tb)) break;  // no Tablebase: thread 0 reported why
    const ProbeResult r = tb->probe_wdl(p[i++]);
    not_ok += !r.ok();
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["not_ok"] = benchmark::Counter(static_cast<double>(not_ok), benchmark::Counter::kAvgThreads);
  if (state.thread_index() == 0 && tb) {
    const CacheStats c = tb->cache_stats();
    state.counters["captures"] = w.captures;
    state.counters["hit_rate"] =
        c.hits + c.misses > 0 ? static_cast<double>(c.hits) / static_cast<double>(c.hits + c.misses) : 0;
  }
}
// Each thread probes kPositions / threads positions: every position once per run.
BENCHMARK(BM_EngineProbeWdl)->Threads(1)->Iterations(kPositions)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineProbeWdl)->Threads(2)->Iterations(kPositions / 2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace damka
