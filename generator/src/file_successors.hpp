// Private to the generator: finished materials read from their table files
// through the value oracle (value_oracle.hpp: capture positions are
// resolved from their captures, whatever their entries hold) and one
// bounded cache of decoded blocks that its readers share (format's
// CachedTable and TableCache: a hit takes no lock); or, for materials this run built and kept in memory
// (resident_tables.hpp), from their true codes directly.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "damka/engine.hpp"
#include "damka/cached_table.hpp"
#include "damka/table_file.hpp"
#include "resident_tables.hpp"

namespace damka {

// A reader of a FileSuccessors (its reader() and file_reader() give one).
class FileSuccessorReader : public SuccessorReader {
 public:
  // code(p) for p, the position at `slot` of canonical material m's table
  // (as position_at gives it), whose side to move has no capture (the
  // caller checked: load_resident).  Where m's files store p's side to
  // move, its entries are read by slot: no ranking of p, no capture
  // generation, no resolved-position cache (about a third of code()'s
  // instructions for such a position); else (a one-side distance file's
  // other side, a resident material) code(p).  Errors as code()'s.
  virtual std::uint16_t stored_code(const Material& m, const Position& p, std::uint64_t slot) = 0;
};

class FileSuccessors : public SuccessorSource {
 public:
  // Opens `metric`'s file (DTW or DTC: and the WDL file, which says which
  // positions are drawn, FORMAT.md 3.5) of every material in `materials`
  // (canonical) and of every material they convert into, transitively (the
  // oracle's search over captures reaches them), under `dir`; fails naming
  // the first file that is missing or unreadable.  Materials found in
  // `resident` (may be null; its codes must be `metric`'s true codes) are
  // read from there, not from files; the source holds them (shares
  // ownership) until it is destroyed.  Files are read through `env`,
  // which must outlive the source.  The readers share one block cache of
  // cache_bytes_per_reader * readers bytes (`readers`: how many readers
  // the caller will use at once; reader_bytes() is the planner's share of
  // one).  Cost: opens and checks two files per material.
  static Expected<std::unique_ptr<FileSuccessors>> open(const Rules& rules, const std::filesystem::path& dir,
                                                        const std::vector<Material>& materials, Metric metric,
                                                        std::uint64_t cache_bytes_per_reader, int readers,
                                                        const ResidentTables* resident = nullptr,
                                                        Env& env = default_env());
  std::unique_ptr<SuccessorReader> reader() const override;
  // reader(), with its reads by slot (FileSuccessorReader).  Thread-safe.
  std::unique_ptr<FileSuccessorReader> file_reader() const;
  std::uint64_t reader_bytes() const override { return cache_bytes_; }

  struct Entry {
    Material canonical;
    MaterialIndex index;
    std::unique_ptr<CachedTable> file;  // the metric's file (null when resident)
    std::unique_ptr<CachedTable> wdl;   // a distance metric's: the WDL file, whose draws it leaves don't care
    ResidentTables::Codes resident;     // true codes by slot, or null
  };
  // Entry number of a canonical material, -1 if not opened.
  int find(const Material& canonical) const;
  // Every material it reads (canonical, in opening order), and whether it
  // is read from memory (resident) rather than through its files.
  std::vector<std::pair<Material, bool>> sources() const;

 private:
  const Rules* rules_ = nullptr;
  Metric metric_ = Metric::DTW;
  std::unique_ptr<TableCache> cache_;  // before entries_: their tables hold blocks in it
  std::vector<Entry> entries_;
  std::vector<std::int16_t> by_key_;  // entry number by material_number(), -1 if none
  std::uint64_t cache_bytes_ = 0;
};

}  // namespace damka
