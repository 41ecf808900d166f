// A material's values in slot order (material_reader.hpp): its own files
// read block by block, capture positions valued through the Tablebase.
#include "damka/material_reader.hpp"

#include <cassert>
#include <string>

#include "damka/open_table.hpp"
#include "damka/slots.hpp"
#include "damka/value_oracle.hpp"

namespace damka {

namespace fs = std::filesystem;

MaterialReader::MaterialReader(const Tablebase& tb, const Material& m)
    : tb_(&tb), index_(std::make_unique<MaterialIndex>(m)), slots_(table_slots(*index_)) {}

MaterialReader::MaterialReader(MaterialReader&&) noexcept = default;
MaterialReader& MaterialReader::operator=(MaterialReader&&) noexcept = default;
MaterialReader::~MaterialReader() = default;

fs::path MaterialReader::path(Metric metric) const {
  return tb_->directory() / (material().name() + "." + std::string(metric_name(metric)));
}

Expected<MaterialReader> MaterialReader::open(const Tablebase& tb, const Material& m) {
  if (!m.is_valid() || !m.is_canonical() || m.white() == 0 || m.black() == 0 || m.pieces() > kMaxIndexPieces)
    return Error(m.name() + ": not a canonical material with pieces on both sides (and at most " +
                     std::to_string(kMaxIndexPieces) + " pieces)");
  MaterialReader r(tb, m);
  for (Metric metric : {Metric::WDL, Metric::DTW, Metric::DTC}) {
    const fs::path path = r.path(metric);
    auto file = open_table(path, tb.rules(), m, metric, FileAccess::Pread, tb.env());
    if (!file) {
      if (file.code() == ErrorCode::NotFound && metric != Metric::WDL) continue;
      if (file.code() == ErrorCode::NotFound)
        return Error(path.string() + ": no such file (the WDL table of " + m.name() + ")", ErrorCode::NotFound);
      return file.error();
    }
    r.files_[static_cast<int>(metric)] = std::move(*file);
  }
  return r;
}

Status MaterialReader::read(std::uint64_t first, std::uint64_t n, Reads what, Range& r) const {
  if (first > slots_ || n > slots_ - first)
    return Error(material().name() + ": slots " + std::to_string(first) + "+" + std::to_string(n) + " out of range");
  r.first = first;
  for (bool& h : r.has) h = false;
  auto load = [&](Metric metric) -> Status {
    const int i = static_cast<int>(metric);
    if (!files_[i]) return Error(path(metric).string() + ": no such file", ErrorCode::NotFound);
    if (Status s = read_slots(*files_[i], first, n, r.codes[i], r.block); !s.ok()) return s;
    r.has[i] = true;
    return {};
  };
  if (Status s = load(Metric::WDL); !s.ok()) return s;
  if (what.dtw)
    if (Status s = load(Metric::DTW); !s.ok()) return s;
  if (what.dtc)
    if (Status s = load(Metric::DTC); !s.ok()) return s;
  if (!what.positions) {
    r.positions.clear();
    r.derived.clear();
    return {};
  }
  r.positions.resize(n);
  r.derived.resize(n);
  const Rules& rules = tb_->rules();
  SlotCursor slots(*index_);
  for (std::uint64_t j = 0; j < n; ++j) {
    r.positions[j] = slots.at(first + j);
    r.derived[j] = is_derived(rules, r.positions[j]) ? 1 : 0;
  }
  return {};
}

Expected<Value> MaterialReader::value(const Range& r, std::size_t j, Metric metric) const {
  assert(j < r.positions.size());  // the positions were read
  assert(r.has[static_cast<int>(metric)]);
  // A capture position, or a won or lost position of the side a one-side
  // distance file leaves out (FORMAT.md 3.5, one side to move): the oracle's search.
  const bool searched = r.derived[j] || (metric != Metric::WDL && Value::decode(r.codes[0][j]).wdl != Wdl::Draw &&
                                         !files_[static_cast<int>(metric)]->header().stores_slot(r.first + j));
  if (searched) {
    const ProbeResult p = tb_->probe(r.positions[j], metric);
    if (!p.ok()) return probe_failure(*tb_, material(), r.positions[j], metric, p.status);
    return metric == Metric::WDL ? p.value.wdl_only() : p.value;
  }
  const std::uint16_t wdl = r.codes[0][j];
  if (metric == Metric::WDL) return Value::decode(wdl).wdl_only();
  Value v;
  if (!distance_value(wdl, r.codes[static_cast<int>(metric)][j], v))
    return Error(path(metric).string() + ": slot " + std::to_string(r.first + j) +
                     " disagrees with the WDL table on who wins",
                 ErrorCode::Corrupt);
  return v;
}

Error probe_failure(const Tablebase& tb, const Material& m, const Position& p, Metric metric, ProbeStatus status) {
  switch (status) {
    case ProbeStatus::Unknown: {
      std::string names;
      for (const Material& x : tb.missing_tables(p, metric)) names += (names.empty() ? "" : ", ") + x.name();
      return Error("the capture positions of " + m.name() + " need the " + std::string(metric_name(metric)) +
                       " tables of " + (names.empty() ? std::string("materials") : names) + ", missing from " +
                       tb.directory().string(),
                   ErrorCode::NotFound);
    }
    case ProbeStatus::Corrupt: return Error(Tablebase::thread_last_problem(), ErrorCode::Corrupt);
    case ProbeStatus::IoError: return Error(Tablebase::thread_last_problem(), ErrorCode::Io);
    default:
      return Error(m.name() + ": a capture position could not be valued (" + std::string(probe_status_name(status)) +
                   ")");
  }
}

}  // namespace damka
