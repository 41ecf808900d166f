// Values of table files for the statutes, in bounded memory: positions read
// through the probe library's block cache and the value oracle, statute-aware
// counts kept in temporary table files (or in memory when no work folder is
// given).
#include <algorithm>

#include "count_store.hpp"
#include "damka/probe.hpp"
#include "damka/statutes.hpp"
#include "damka/table_paths.hpp"
#include "damka/table_scan.hpp"

namespace damka {
namespace {

// Each block cache gets cache_bytes, by default an eighth of the budget
// (4 MiB to 1 GiB); the engine the rest.
std::uint64_t cache_share(const TableDirOptions& o) {
  if (o.cache_bytes) return o.cache_bytes;
  return std::clamp<std::uint64_t>(o.memory_budget / 8, std::uint64_t{4} << 20, std::uint64_t{1} << 30);
}

}  // namespace

TableDirValues::TableDirValues(const Rules& rules, std::filesystem::path dir, const TableDirOptions& options)
    : ValueSource(rules, !options.keep_dir.empty()
                             ? std::make_unique<FileCountStore>(rules, options.keep_dir,
                                                                tables_root(dir, rules, env_or_default(options.env)),
                                                                cache_share(options), env_or_default(options.env))
                         : options.work_dir.empty()
                             ? std::unique_ptr<CountStore>()
                             : std::make_unique<FileCountStore>(rules, options.work_dir,
                                                                cache_share(options),
                                                                env_or_default(options.env))),
      env_(&env_or_default(options.env)),
      dir_(tables_root(dir, rules, *env_)) {
  const std::uint64_t caches = cache_share(options) * (options.work_dir.empty() && options.keep_dir.empty() ? 1 : 2);
  engine_budget_ = options.memory_budget > caches ? options.memory_budget - caches : 0;
  plain_wdl_bytes_ = std::min(engine_budget_, options.plain_wdl_bytes == ~std::uint64_t{0} ? engine_budget_ / 8
                                                                                           : options.plain_wdl_bytes);
  engine_budget_ -= plain_wdl_bytes_;
  TablebaseOptions t;
  t.cache_bytes = cache_share(options);
  t.map_files = false;  // pread: the memory used is the cache's
  t.env = options.env;
  auto tb = Tablebase::open(rules, dir_, t);
  if (tb) tb_ = std::move(*tb);
  else open_error_ = tb.error();
}

TableDirValues::~TableDirValues() = default;

bool TableDirValues::has_table(const Material& canonical) const {
  const auto regular = [&](Metric m) {
    auto info = env_->stat(table_path(dir_, rules(), canonical, m));
    return info && info->regular;
  };
  return regular(Metric::DTW) && regular(Metric::DTC);
}

std::string TableDirValues::describe() const { return "tables in " + table_dir(dir_, rules()).string(); }

Expected<Value> TableDirValues::value(const Position& p, Metric metric) const {
  if (Status s = probeable(p); !s.ok()) return s.error();  // the tables' own rule (probe.hpp)
  if (p.pieces(p.side_to_move) == 0) return Value::loss(0);
  if (!tb_) return open_error_;
  const ProbeResult r = tb_->probe(p, metric);
  switch (r.status) {
    case ProbeStatus::Ok: return r.value;
    case ProbeStatus::Unknown: {
      std::string names;
      for (const Material& m : tb_->missing_tables(p, metric)) names += (names.empty() ? "" : ", ") + m.name();
      return Error("no table for " + (names.empty() ? material_of(p).canonical().name() : names) + " (" +
                       describe() + ")",
                   ErrorCode::NotFound);
    }
    case ProbeStatus::Invalid: return probe_status_error(*tb_, p, r.status, metric);
    default: {
      const std::string& why = Tablebase::thread_last_problem();
      return Error("table " + material_of(p).canonical().name() + " in " + table_dir(dir_, rules()).string() + ": " +
                       (why.empty() ? std::string(probe_status_name(r.status)) : why),
                   probe_status_code(r.status));
    }
  }
}

Expected<std::unique_ptr<SlotSource>> TableDirValues::slots(const Material& canonical) const {
  if (!tb_) return open_error_;
  // The material's own files, read block by block.
  struct FileSlots final : SlotSource {
    MaterialReader reader;
    explicit FileSlots(MaterialReader r) : reader(std::move(r)) {}
    Status read(std::uint64_t first, std::uint64_t n, Reads what, Range& r) const override {
      return reader.read(first, n, what, r);
    }
    Expected<Value> value(const Range& r, std::size_t j, Metric metric) const override {
      return reader.value(r, j, metric);
    }
  };
  auto reader = MaterialReader::open(*tb_, canonical);
  if (!reader) return reader.error();
  return std::unique_ptr<SlotSource>(std::make_unique<FileSlots>(std::move(*reader)));
}

}  // namespace damka
