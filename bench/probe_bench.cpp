// Benchmarks of damka_probe on real Russian tables (2K1Mv1K and what it
// needs, built on first run into $DAMKA_BENCH_TABLES or a temporary folder
// and reused after):
//   BM_ProbeWdlCached      WDL probe, block in the cache (target: < 60 ns);
//                          with 2 threads the items/s should be >= 1.8x one thread's
//   BM_ProbeWdlUncached    WDL probe whose block is not cached: it reads it
//                          (pread of ~40 bytes from the OS page cache, then the
//                          run-length/Huffman decoding of 1024 positions straight
//                          into the cache's 2-bit form; the group of 64 blocks
//                          is read and its checksum checked on every read;
//                          /1 also inserts and evicts) (target < 2 us)
//   DAMKA_BENCH_MAP=1 reads through a memory map instead of pread.
//   BM_ProbeDtwUncached    the same for DTW; second argument 1: the tables
//                          built with one side to move in each distance
//                          file (generate --one-side, FORMAT.md 3.5; built
//                          on first run into the folder's one_side/), whose
//                          other side the probe finds by a search
//   BM_ProbeDtwCached      DTW probe, blocks cached (second argument as above)
//   BM_ProbeConditional    conditional WDL probe, block cached
//   BM_ProbeCapture        WDL probe of positions with a capture (from the successors)
//   BM_ProbeMoves          every move with its DTW and DTC, blocks cached
//                          (argument 1: the one-side tables)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

#include "damka/generate.hpp"
#include "damka/probe.hpp"
#include "damka/slots.hpp"
#include "damka/table_file.hpp"
#include "damka/value_oracle.hpp"

namespace damka {
namespace {

const Rules& russian() { return rules_of(Variant::Russian); }
const Material kMaterial = *Material::parse("2K1Mv1K");

// Rewrites a WDL table with its capture positions as don't-care entries, as
// tables written with the value oracle's rule are (FORMAT.md 2, 3.5).
// Idempotent.
void mark_derived_dont_care(const std::filesystem::path& file) {
  auto reader = TableReader::open(file);
  if (!reader) {
    std::fprintf(stderr, "probe_bench: %s\n", reader.message().c_str());
    return;
  }
  const TableHeader h = (*reader)->header();
  const MaterialIndex idx(h.material);
  std::vector<std::uint16_t> codes, block;
  for (std::uint64_t b = 0; b < (*reader)->num_blocks(); ++b) {
    if (!(*reader)->read_block(b, block).ok()) return;
    codes.insert(codes.end(), block.begin(), block.end());
  }
  for (std::uint64_t s = 0; s < codes.size(); ++s)
    if (is_derived(russian(), position_at(idx, s))) codes[s] = kDontCareCode;
  if (Status st = write_table(file, default_table_header(russian(), h.material, Metric::WDL), codes); !st.ok()) std::fprintf(stderr, "probe_bench: %s\n", st.message().c_str());
}

std::filesystem::path build_tables(bool one_side) {
  const char* env = std::getenv("DAMKA_BENCH_TABLES");
  std::filesystem::path d = env ? std::filesystem::path(env)
                                : std::filesystem::temp_directory_path() /
                                      ("damka_probe_bench_" + std::to_string(::getuid()));
  if (one_side) d /= "one_side";
  GenerateOptions opt;
  opt.out = d;
  opt.only = kMaterial;
  opt.one_side = one_side;
  opt.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto r = generate(russian(), opt);  // skips tables already there
  if (!r) std::fprintf(stderr, "probe_bench: generate: %s\n", r.message().c_str());
  mark_derived_dont_care(d / "russian" / (kMaterial.name() + ".wdl"));
  return d;
}

// The tables, both sides to move in every file or (one_side) one side in
// each distance file.
const std::filesystem::path& table_root(bool one_side = false) {
  static const std::filesystem::path both = build_tables(false);
  if (!one_side) return both;
  static const std::filesystem::path one = build_tables(true);
  return one;
}

// 4096 random positions of the material (both colours to move), with or
// without a capture for the side to move.
const std::vector<Position>& positions(bool captures) {
  auto make = [](bool want_capture) {
    const MaterialIndex idx(kMaterial);
    std::mt19937_64 rng(12345);
    std::vector<Position> out;
    while (out.size() < 4096) {
      Position p = position_at(idx, rng() % table_slots(idx));
      if (rng() & 1) p = p.flipped();
      if (has_capture(russian(), p) == want_capture) out.push_back(p);
    }
    return out;
  };
  static const std::vector<Position> quiet = make(false), capture = make(true);
  return captures ? capture : quiet;
}

std::unique_ptr<Tablebase> open_tb(std::size_t cache_bytes, bool one_side = false) {
  TablebaseOptions opt;
  opt.cache_bytes = cache_bytes;
  // DAMKA_BENCH_MAP=1: read through a memory map (the default is pread).
  if (const char* map = std::getenv("DAMKA_BENCH_MAP")) opt.map_files = std::string(map) == "1";
  auto tb = Tablebase::open(russian(), table_root(one_side), opt);
  if (!tb) {
    std::fprintf(stderr, "probe_bench: %s\n", tb.message().c_str());
    std::abort();
  }
  return std::move(*tb);
}

// One Tablebase with a large cache, warmed with every benchmark position.
std::unique_ptr<Tablebase> warmed_tb(bool one_side) {
  auto t = open_tb(std::size_t{256} << 20, one_side);
  for (bool c : {false, true})
    for (const Position& p : positions(c))
      for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) (void)t->probe(p, m);
  std::vector<MoveValue> mv;
  for (const Position& p : positions(false)) (void)t->probe_moves(p, mv);
  return t;
}
const Tablebase& cached_tb(bool one_side = false) {
  static const std::unique_ptr<Tablebase> both = warmed_tb(false);
  if (!one_side) return *both;
  static const std::unique_ptr<Tablebase> one = warmed_tb(true);
  return *one;
}

void BM_ProbeWdlCached(benchmark::State& state) {
  const Tablebase& tb = cached_tb();
  const auto& pos = positions(false);
  std::size_t i = static_cast<std::size_t>(state.thread_index()) * 1031;
  std::uint64_t bad = 0;
  for (auto _ : state) {
    const ProbeResult r = tb.probe_wdl(pos[i & 4095]);
    bad += !r.ok();
    benchmark::DoNotOptimize(r);
    ++i;
  }
  if (bad) state.SkipWithError("a probe failed");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProbeWdlCached)->Threads(1)->Threads(2)->UseRealTime()->Repetitions(5)->ReportAggregatesOnly(true);

void BM_ProbeConditional(benchmark::State& state) {
  const Tablebase& tb = cached_tb();
  const auto& pos = positions(false);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tb.probe_wdl(pos[i & 4095], ProbeMode::Conditional));
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProbeConditional);

// Arg 0: no cache at all (every probe reads its block and throws it away).
// Arg 1: a cache of 24 KiB, one block: most probes read their block, pack it,
// insert it and evict the previous one (the whole miss path).
// A second argument 1 (DTW): the one-side tables.
void probe_uncached(benchmark::State& state, Metric metric) {
  const bool one_side = metric != Metric::WDL && state.range(1) != 0;
  const auto tb = open_tb(state.range(0) == 0 ? 0 : 24 << 10, one_side);
  const auto& pos = positions(false);
  for (const Position& p : pos) (void)tb->probe(p, metric);  // open the file, bring it into the page cache
  const CacheStats before = tb->cache_stats();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tb->probe(pos[i & 4095], metric));
    ++i;
  }
  const CacheStats after = tb->cache_stats();
  state.counters["reads_per_probe"] =
      static_cast<double>(after.reads - before.reads) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
}
void BM_ProbeWdlUncached(benchmark::State& state) { probe_uncached(state, Metric::WDL); }
void BM_ProbeDtwUncached(benchmark::State& state) { probe_uncached(state, Metric::DTW); }
BENCHMARK(BM_ProbeWdlUncached)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);
BENCHMARK(BM_ProbeDtwUncached)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Unit(benchmark::kMicrosecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

// Arg 1: the one-side tables (a probe of the side left out searches its
// moves, every block cached).
void BM_ProbeDtwCached(benchmark::State& state) {
  const Tablebase& tb = cached_tb(state.range(0) != 0);
  const auto& pos = positions(false);
  std::size_t i = 0;
  std::uint64_t bad = 0;
  for (auto _ : state) {
    const ProbeResult r = tb.probe(pos[i & 4095], Metric::DTW);
    bad += !r.ok();
    benchmark::DoNotOptimize(r);
    ++i;
  }
  if (bad) state.SkipWithError("a probe failed");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProbeDtwCached)->Arg(0)->Arg(1)->Repetitions(5)->ReportAggregatesOnly(true);

void BM_ProbeCapture(benchmark::State& state) {
  const Tablebase& tb = cached_tb();
  const auto& pos = positions(true);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tb.probe_wdl(pos[i & 4095]));
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProbeCapture);

void BM_ProbeMoves(benchmark::State& state) {
  const Tablebase& tb = cached_tb(state.range(0) != 0);
  const auto& pos = positions(false);
  std::vector<MoveValue> mv;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(tb.probe_moves(pos[i & 4095], mv));
    ++i;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ProbeMoves)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace damka
