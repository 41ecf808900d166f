// The files of one material written as the engine streams its values.
#include "table_sink.hpp"

#include "damka/table_paths.hpp"
#include "damka/value.hpp"
#include "generate_detail.hpp"

namespace damka::generate_detail {

FileSink::FileSink(const Rules& rules, const std::filesystem::path& dir, const Material& m, const MetricSet& metrics,
                   Compression compression, int threads, Env& env, bool one_side)
    : rules_(rules), dir_(dir), m_(m), passes_(metrics), metrics_(metrics), compression_(compression),
      threads_(threads), env_(env), one_side_(one_side) {}

Status FileSink::open() {
  WriteOptions wo;
  wo.threads = threads_;
  wo.env = &env_;
  wo.keep_smaller_side = one_side_;
  for (int k = 0; k < 3; ++k) {
    const Metric metric = kFileMetrics[k];
    if ((metric == Metric::DTW && !metrics_.dtw) || (metric == Metric::DTC && !metrics_.dtc)) continue;
    auto b = TableBuilder::create(table_path(dir_, rules_, m_, metric),
                                  default_table_header(rules_, m_, metric, compression_), wo);
    if (!b) return b.error();
    builders_[k] = std::move(*b);
  }
  return {};
}

Status FileSink::add(std::uint64_t, std::span<const std::span<const std::uint16_t>> codes) {
  wdl_.resize(codes[0].size());
  const std::span<const std::uint16_t> primary = codes[0];
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(wdl_.size()); ++i)
    wdl_[i] = primary[i] == kDontCareCode ? kDontCareCode : Value::wdl_only_code(primary[i]);
  if (Status s = builders_[0]->add(wdl_); !s.ok()) return s;
  if (builders_[1])
    if (Status s = builders_[1]->add(without_draws(codes[0])); !s.ok()) return s;
  if (builders_[2])
    if (Status s = builders_[2]->add(without_draws(codes[passes_.dtc])); !s.ok()) return s;
  return {};
}

std::span<const std::uint16_t> FileSink::without_draws(std::span<const std::uint16_t> codes) {
  dist_.resize(codes.size());
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(codes.size()); ++i)
    dist_[i] = codes[i] == Value::draw().encode() ? kDontCareCode : codes[i];
  return dist_;
}

Status FileSink::finish(TableReport& r) {
  for (int k = 0; k < 3; ++k) {
    if (!builders_[k]) continue;
    if (Status s = builders_[k]->finish(); !s.ok()) return s;
    r.bytes[k] = builders_[k]->file_size();
  }
  return {};
}

}  // namespace damka::generate_detail
