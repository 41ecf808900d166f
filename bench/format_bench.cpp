// Benchmarks of damka_format: index rank/unrank, slot lookup, block reads, table writes.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <vector>

#include "damka/slots.hpp"
#include "damka/table_file.hpp"

namespace damka {
namespace {

const char* const kMaterials[] = {"3Kv1K", "2K1Mv1K1M", "2K2Mv2M", "3K2Mv2K1M", "4Mv4M"};

std::vector<Position> sample_positions(const MaterialIndex& idx, std::size_t n) {
  std::mt19937_64 rng(42);
  std::vector<Position> out(n);
  for (auto& p : out) p = idx.unrank(rng() % idx.size());
  return out;
}

void BM_Rank(benchmark::State& state) {
  const MaterialIndex idx(*Material::parse(kMaterials[state.range(0)]));
  const auto pos = sample_positions(idx, 4096);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idx.rank(pos[i]));
    i = (i + 1) & 4095;
  }
  state.SetLabel(idx.material().name());
}
BENCHMARK(BM_Rank)->DenseRange(0, 4);

void BM_Unrank(benchmark::State& state) {
  const MaterialIndex idx(*Material::parse(kMaterials[state.range(0)]));
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> ids(4096);
  for (auto& x : ids) x = rng() % idx.size();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(idx.unrank(ids[i]));
    i = (i + 1) & 4095;
  }
  state.SetLabel(idx.material().name());
}
BENCHMARK(BM_Unrank)->DenseRange(0, 4);

// locate() builds the canonical material's index each call.
void BM_Locate(benchmark::State& state) {
  const MaterialIndex idx(*Material::parse(kMaterials[state.range(0)]));
  auto pos = sample_positions(idx, 4096);
  for (std::size_t j = 0; j < pos.size(); j += 2) pos[j] = pos[j].flipped();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(locate(pos[i]));
    i = (i + 1) & 4095;
  }
  state.SetLabel(idx.material().name());
}
BENCHMARK(BM_Locate)->DenseRange(0, 4);

// The codes of a synthetic table with header h: runs of equal codes (a new
// run every 64 codes on average) with 10% noise; with `dont_care`, a fifth
// of the codes are don't care.
std::vector<std::uint16_t> synthetic_codes(const TableHeader& h, bool dont_care) {
  std::mt19937 rng(1);
  auto any = [&] { return static_cast<std::uint16_t>(h.metric == Metric::WDL ? rng() % 3 : rng() % 80); };
  std::vector<std::uint16_t> codes(h.slots);
  std::uint16_t run = 0;
  for (auto& c : codes) {
    if (rng() % 64 == 0) run = any();
    c = rng() % 10 == 0 ? any() : run;
    if (dont_care && rng() % 5 == 0) c = kDontCareCode;
  }
  return codes;
}

// Reading one block (pread, checksum, zstd, decode) of a synthetic table with
// the default block size: runs of equal codes with 10% noise.
void BM_ReadBlock(benchmark::State& state) {
  const Metric metric = static_cast<Metric>(state.range(0));
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2K1Mv1K1M"), metric);
  const std::vector<std::uint16_t> codes = synthetic_codes(h, false);
  const auto path = std::filesystem::temp_directory_path() / ("damka_bench_" + std::to_string(::getpid()));
  if (!write_table(path, h, codes).ok()) return state.SkipWithError("write_table failed");
  auto r = TableReader::open(path);
  if (!r.ok()) return state.SkipWithError("open failed");
  std::vector<std::uint16_t> out;
  std::uint64_t b = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize((*r)->read_block(b, out).ok());
    b = (b + 1) % ((*r)->num_blocks() - 1);
  }
  state.counters["positions_per_block"] = static_cast<double>(h.block_size);
  state.counters["positions_per_byte"] =
      static_cast<double>(h.slots) / static_cast<double>((*r)->header().file_size);
  state.SetLabel(std::string(metric_name(metric)));
  std::filesystem::remove(path);
}
BENCHMARK(BM_ReadBlock)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Writing a whole table (the generator's write phase): WDL (the wdlrun
// parse and its Huffman pass) and DTW (zstd), both threads of this machine
// or one.  Synthetic codes with don't care.
void BM_WriteTable(benchmark::State& state) {
  const Metric metric = static_cast<Metric>(state.range(0));
  TableHeader h = default_table_header(rules_of(Variant::Russian), *Material::parse("2K1Mv1K1M"), metric);
  const std::vector<std::uint16_t> codes = synthetic_codes(h, true);
  const auto path = std::filesystem::temp_directory_path() / ("damka_bench_w" + std::to_string(::getpid()));
  WriteOptions wo;
  wo.threads = static_cast<int>(state.range(1));
  for (auto _ : state)
    if (!write_table(path, h, codes, wo).ok()) return state.SkipWithError("write_table failed");
  state.counters["positions_per_second"] =
      benchmark::Counter(static_cast<double>(h.slots), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(metric_name(metric)));
  std::filesystem::remove(path);
}
BENCHMARK(BM_WriteTable)->Args({0, 1})->Args({1, 1})->Args({0, 2})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace damka
