// A material's values in slot order: the one sequential reader of a
// material's own table files, for walks over every position of a material
// (`info --stats`, the statute report, the statute counts' check).
//
//   auto r = damka::MaterialReader::open(tb, *damka::Material::parse("2K1Mv2K"));
//   damka::MaterialReader::Range range;               // one per thread, reused
//   for (std::uint64_t first = 0; first < r->slots(); first += 1 << 16) {
//     auto n = std::min<std::uint64_t>(1 << 16, r->slots() - first);
//     if (auto s = r->read(first, n, {.dtw = true}, range); !s.ok()) ...;
//     for (std::size_t j = 0; j < n; ++j) {
//       auto v = r->value(range, j, damka::Metric::DTW);  // stored, or the oracle's
//       ... range.positions[j] ...
//     }
//   }
//
// A range of slots is read block by block from the material's files (the WDL
// file, and the DTW or DTC file where asked: FORMAT.md 3.5, a distance entry
// means something only where the WDL entry is not a draw).  Capture positions
// (value_oracle.hpp is_derived: the side to move must capture) have don't
// care entries: value() asks the Tablebase for them (its oracle searches the
// captures, reading the successors through its bounded block cache), so a
// caller that needs only some of them pays only for those.
//
// Memory: the caller's Range (for n slots about 24 bytes a slot and one
// decoded block); nothing grows with the table.  Files are opened with pread,
// never mapped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "damka/expected.hpp"
#include "damka/index.hpp"
#include "damka/material.hpp"
#include "damka/probe.hpp"
#include "damka/table_file.hpp"

namespace damka {

class MaterialReader {
 public:
  // The files of canonical material m in tb's folder: the WDL file must be
  // there; a DTW or DTC file that is not there leaves has(metric) false.
  // Every file's header is checked against what its name says (rules,
  // material, metric, slot count): a mismatch is Corrupt, a missing WDL file
  // NotFound, an unreadable one Io.  Cost: opens and reads the headers of up
  // to three files.  `tb` must outlive the reader.
  static Expected<MaterialReader> open(const Tablebase& tb, const Material& m);

  MaterialReader(MaterialReader&&) noexcept;
  MaterialReader& operator=(MaterialReader&&) noexcept;
  ~MaterialReader();

  const Material& material() const { return index_->material(); }
  const MaterialIndex& index() const { return *index_; }
  std::uint64_t slots() const { return slots_; }
  // Whether the metric's file is there (WDL: always).
  bool has(Metric metric) const { return files_[static_cast<int>(metric)] != nullptr; }
  // The path of the metric's file (whether or not it is there).
  std::filesystem::path path(Metric metric) const;

  // What read() reads beside the WDL file: distance files, and the
  // positions with their capture flags (what value() needs).
  struct Reads {
    bool dtw = false, dtc = false;
    bool positions = true;
  };
  // What read() fills; reuse one per thread.
  struct Range {
    std::uint64_t first = 0;
    std::vector<Position> positions;     // position_at(index, first + j)
    std::vector<std::uint8_t> derived;   // 1: a capture position (entries don't care)
    std::vector<std::uint16_t> codes[3]; // by Metric: each file's codes (WDL always, DTW/DTC when read)
    bool has[3] = {false, false, false}; // which metrics were read
    std::vector<std::uint16_t> block;    // scratch
  };
  // Reads slots [first, first + n) (first + n <= slots()): the WDL codes,
  // the codes of the distance files asked for (NotFound if one is not there:
  // check has()) and, unless what.positions is false, the positions and which
  // are capture positions.
  // Errors: as TableReader::read_block.  Cost: a read and decode of each block
  // the range touches, one position_at() and has_capture() per slot.
  // Thread-safe (per-call Range).
  Status read(std::uint64_t first, std::uint64_t n, Reads what, Range& r) const;

  // The value of slot r.first + j for its side to move in `metric` (WDL, or
  // a metric read; the positions read): the stored entry, or for a capture position the
  // Tablebase's (a search over its captures).  Errors: a distance entry that
  // disagrees with the WDL entry (Corrupt), a successor's table missing
  // (NotFound), corrupt (Corrupt) or unreadable (Io).  Thread-safe.
  Expected<Value> value(const Range& r, std::size_t j, Metric metric) const;

 private:
  MaterialReader(const Tablebase& tb, const Material& m);
  const Tablebase* tb_;
  std::unique_ptr<MaterialIndex> index_;
  std::uint64_t slots_ = 0;
  std::unique_ptr<TableReader> files_[3];
};

// The error of a failed probe of p (a position of material m) in `metric`,
// with its code: the missing tables named (NotFound), Corrupt, Io.
Error probe_failure(const Tablebase& tb, const Material& m, const Position& p, Metric metric, ProbeStatus status);

}  // namespace damka
