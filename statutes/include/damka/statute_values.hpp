// Statute values: where the statutes read plain values and keep the
// statute-aware counts computed from them (see damka/statutes.hpp for the counting).
// (Part of the statutes library; damka/statutes.hpp includes every part.)

#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/material_reader.hpp"
#include "damka/metric_spec.hpp"
#include "damka/position.hpp"
#include "damka/rulebook.hpp"
#include "damka/rules.hpp"
#include "damka/solved_table.hpp"
#include "damka/value.hpp"

namespace damka {

class Tablebase;   // probe.hpp
class CountStore;  // where computed statute-aware counts are kept (statutes/src/count_store.hpp)
class PlainWdlStore;  // the plain WDL of the materials counts capture into (statutes/src/plain_wdl_store.hpp)
class PlainWdlView;   // values read from it (the same header)

// The statute-aware counts of one clause and canonical material, by slot
// (value.hpp codes), wherever they are kept (memory or a temporary file).
class StatuteCounts {
 public:
  virtual ~StatuteCounts() = default;
  virtual std::uint64_t slots() const = 0;
  // The code of one slot.  Errors: a read failure of a temporary file.
  // Cost: an array read, or a look-up in a bounded block cache (a block
  // read and decompression on a miss).  Thread-safe.
  virtual Expected<std::uint16_t> code(std::uint64_t slot) const = 0;
};

// A canonical material's positions and plain values in slot order, for
// walks over every slot (the statute report, the check of statute counts):
// from a folder, its own files read block by block (MaterialReader) with
// capture positions valued through the oracle; elsewhere position by position
// through ValueSource::value().  Memory: the caller's Range.
class SlotSource {
 public:
  using Range = MaterialReader::Range;
  using Reads = MaterialReader::Reads;
  virtual ~SlotSource() = default;
  // Reads slots [first, first + n): the WDL codes (codes[0]: the stored
  // entry; a capture position's means nothing unless `derived` says it is
  // not one), the distance codes asked for, and unless what.positions is
  // false the positions and their capture flags.  Thread-safe (per-call
  // Range).  Cost: the blocks the range touches, position_at() and
  // has_capture() per slot.
  virtual Status read(std::uint64_t first, std::uint64_t n, Reads what, Range& r) const = 0;
  // The plain value of slot r.first + j in `metric` (WDL or a distance read;
  // the positions read).  Thread-safe.  Cost: a decode, or for a capture
  // position a search over its captures.
  virtual Expected<Value> value(const Range& r, std::size_t j, Metric metric) const = 0;
};

// Where statutes read values: the plain values of positions (from tables in
// memory or from table files) and the statute-aware counts computed from
// them, per clause and canonical material.
class ValueSource {
 public:
  // The statute-aware counts computed are kept in memory.
  explicit ValueSource(const Rules& rules);
  // `counts` keeps the statute-aware counts computed; null: in memory.
  ValueSource(const Rules& rules, std::unique_ptr<CountStore> counts);
  virtual ~ValueSource();
  ValueSource(const ValueSource&) = delete;
  ValueSource& operator=(const ValueSource&) = delete;

  const Rules& rules() const { return rules_; }
  // Whether a table exists (without reading it).  Cost: a map look-up or two
  // stat calls.  Thread-safe.
  virtual bool has_table(const Material& canonical) const = 0;
  // "tables in data/tables/russian", for reports.
  virtual std::string describe() const = 0;

  // The value of a position for the side to move (WDL, DTW or DTC) by the
  // value oracle over the tables' stored entries; an error if a table it
  // needs is missing or unreadable.  A side to move without pieces has lost
  // (0).  Cost: one entry read (a capture position: a search over its
  // captures).  Thread-safe.
  virtual Expected<Value> value(const Position& p, Metric metric) const = 0;
  // A walk over a canonical material's slots (SlotSource).  Default: through
  // value() position by position.  Errors: the material's files missing or
  // foreign.  Cost: opening the files.  Thread-safe.
  virtual Expected<std::unique_ptr<SlotSource>> slots(const Material& canonical) const;
  // Memory the engine may use for one statute-aware build (bytes).
  virtual std::uint64_t engine_budget() const { return ~std::uint64_t{0}; }
  // Bytes for the plain WDL of the materials a count's captures lead into,
  // read whole (2 bits a slot) and kept across counts; 0 (the default):
  // their exits are valued through value() one by one.
  virtual std::uint64_t plain_wdl_bytes() const { return 0; }
  // How many materials' plain WDL the counts read whole so far (above).
  std::uint64_t plain_tables_read() const;
  // The plain WDL of the materials with fewer pieces that a canonical
  // material's captures lead into, held in memory as far as
  // plain_wdl_bytes() allows (read now where not held yet, the least
  // recently used dropped), the rest through value(): for the exits of its
  // counts and its capture positions (statutes/src/plain_wdl_store.hpp).
  // Valid until the next call of this or statute_table().  Errors: a table
  // read that failed.  Not thread-safe; the view is.
  Expected<std::unique_ptr<PlainWdlView>> plain_wdl_view(const Material& canonical) const;

  // Statute-aware counts (see "Statute-aware values" below) of every slot of
  // a canonical material under `clause` of `book`: the unlimited count, as
  // value.hpp codes; limit_count(count, clause.limit) is the statute-aware
  // value.  Computed on first use (with those of the materials its exits
  // reach first) and kept in the source's count store; `book` must outlive
  // this source.  Cost: one engine pass per material not computed yet.  Not
  // thread-safe (call it before reading counts from several threads).
  Expected<const StatuteCounts*> statute_table(const Rulebook& book, const Clause& clause,
                                               const Material& canonical) const;
  // The unlimited statute-aware count of p under `clause` (p's material need
  // not be covered: the count is defined for the whole balance).  Computes
  // the counts on first use (then not thread-safe, as statute_table).
  Expected<Value> statute_count(const Rulebook& book, const Clause& clause, const Position& p) const;
  // The value of p as the chain of `clause` reads it when a count starts at
  // p: the limited count of the entry of the same clause number that covers
  // p, or plain play (the tables' WDL) where none does.  Thread-safe once the
  // counts it reads are computed (statute_table computes those of the
  // materials a material's exits reach before its own).
  Expected<Value> statute_value(const Rulebook& book, const Clause& clause, const Position& p) const;

  // A material's result kept by an earlier run under `what` (the JSON text
  // of an object: the statute report's figures), when the source keeps its
  // work across runs (TableDirOptions::keep_dir) and the material's tables
  // are unchanged since; nothing otherwise.  Not thread-safe.
  Expected<std::optional<std::string>> kept_result(const Material& canonical, const std::string& what) const;
  // Keeps `json` (an object) as that result; nothing when the source does
  // not keep its work.  Not thread-safe.
  Status keep_result(const Material& canonical, const std::string& what, const std::string& json) const;

 protected:
  CountStore& count_store() const { return *counts_; }

 private:
  Expected<const StatuteCounts*> compute_counts(const Rulebook& book, const Clause& clause,
                                                const Material& canonical) const;
  const Rules& rules_;
  std::unique_ptr<CountStore> counts_;
  mutable std::unique_ptr<PlainWdlStore> plain_;  // made on first use
};

// Values of tables held whole in memory (an in-memory Solver in tests, or
// tables just built); counts kept in memory.  `tables` must outlive this
// source and hold tables of `rules`.
class SolverValues final : public ValueSource {
 public:
  SolverValues(const Rules& rules, const TableSource& tables);
  ~SolverValues() override;
  // The table of a canonical material, or nullptr.  Thread-safe.
  Expected<const SolvedTable*> table(const Material& canonical) const { return tables_.find(canonical); }
  bool has_table(const Material& canonical) const override { return tables_.find(canonical) != nullptr; }
  std::string describe() const override { return "tables solved in memory"; }
  Expected<Value> value(const Position& p, Metric metric) const override;

  // The kings-only distance codes (value.hpp codes) of every slot of a
  // canonical material, computed on first use and kept.  Not thread-safe.
  Expected<const std::vector<std::uint16_t>*> kings_only(const Material& canonical) const;
  // The value of a position in a clause's count metric.  Not thread-safe
  // (kings-only codes are computed on first use).
  Expected<Value> count_value(const Position& p, CountMetric metric) const;
  // statute_table's codes as a vector (kept in memory here).  Not thread-safe.
  Expected<const std::vector<std::uint16_t>*> statute_counts(const Rulebook& book, const Clause& clause,
                                                             const Material& canonical) const;

 private:
  const TableSource& tables_;
  mutable std::map<Material, std::vector<std::uint16_t>> kings_only_;
};

// Options of a TableDirValues.
struct TableDirOptions {
  // Bytes for the block caches (table files and temporary count files) and
  // the engine's statute-aware builds together.
  std::uint64_t memory_budget = std::uint64_t{2} << 30;
  // Bytes of each block cache; 0: an eighth of memory_budget, 4 MiB to 1 GiB.
  std::uint64_t cache_bytes = 0;
  // Where the temporary folder of statute-aware counts is made (mkdtemp;
  // removed when the source is destroyed).  Empty: counts are kept in
  // memory (for judging a few positions).
  std::filesystem::path work_dir;
  // Not empty (work_dir is then not used): the counts are kept in this
  // folder (made when missing, never removed) and so are the statute
  // report's figures of each material (kept_result), with a journal of
  // them (results_journal.hpp); a later source with the same folder reads
  // them instead of computing them again while the material's table files
  // are unchanged: a report stopped part way through goes on where it
  // stopped.  The counts of one rulebook clause are found by its book
  // name, clause id, limit and restarts.
  std::filesystem::path keep_dir;
  // The tables' files are stat'ed, opened and read through it
  // (TablebaseOptions::env; env.hpp), and so are the temporary count files;
  // null: default_env().  Must outlive the TableDirValues.
  Env* env = nullptr;
  // Bytes for the plain WDL of the materials the counts capture into
  // (ValueSource::plain_wdl_bytes), taken from memory_budget; ~0: an
  // eighth of what is left beside the block caches; 0: none.
  std::uint64_t plain_wdl_bytes = ~std::uint64_t{0};
};

// Values of table files in <dir>/<family>/ (table_paths.hpp), read through
// the probe library's bounded block cache (no table is held whole); the
// statute-aware counts go to temporary table files (TableDirOptions::
// work_dir) read back through a bounded block cache, or stay in memory.
class TableDirValues final : public ValueSource {
 public:
  // Opens nothing but the folder (an error there is returned by value()).
  // Cost: a directory listing.
  TableDirValues(const Rules& rules, std::filesystem::path dir, const TableDirOptions& options = {});
  ~TableDirValues() override;
  // Whether the DTW and DTC files of `canonical` are regular files (two
  // stats through the options' Env; a stat that fails counts as no file).
  bool has_table(const Material& canonical) const override;
  std::string describe() const override;
  Expected<Value> value(const Position& p, Metric metric) const override;
  Expected<std::unique_ptr<SlotSource>> slots(const Material& canonical) const override;
  std::uint64_t engine_budget() const override { return engine_budget_; }
  std::uint64_t plain_wdl_bytes() const override { return plain_wdl_bytes_; }

 private:
  Env* env_;
  std::filesystem::path dir_;
  std::unique_ptr<Tablebase> tb_;
  Error open_error_;  // why the tables could not be opened (with its code)
  std::uint64_t engine_budget_ = 0;
  std::uint64_t plain_wdl_bytes_ = 0;
};

// Kings-only distance codes of one canonical material (see the top of
// damka/statutes.hpp): plies to the next capture, promotion or man move, the winner keeping
// the win.  Exits are valued with `values`; the material's own WDL comes from
// `table`.
Expected<std::vector<std::uint16_t>> compute_kings_only(const Rules& rules, const SolvedTable& table,
                                                        const ValueSource& values);

// ------------------------------------------------------ statute-aware values
//
// What Syzygy's "cursed wins" are to chess's 50-move rule.  For a clause and
// a position of a balance it covers: can the side that wins with perfect play
// still win when the clause's count starts at 0?  The count runs only while
// the clause's balance holds (the material: the clause's position conditions
// are read where the count starts).  A capture or promotion changes the
// balance and ends the count (so does a man move for a clause that restarts
// on man moves); the position reached is judged as the clause's chain reads
// it (ValueSource::statute_value): under the entry of the same clause number
// that covers it, with a fresh count, or by plain play where none does.  The
// count is in moves of the side trying to win (the side that wins): a win in
// d plies needs ceil(d/2) moves with the winner to move, floor(d/2) with the
// defender to move; more than the clause's limit is a draw.
//
// Computed by the generator's pass engine as a limited count
// (metric_spec.hpp): a primary pass over the balance whose exits are valued
// by the statute-aware values of what they reach; levels of men progress are
// solved top-down, so a man move reads a finished level (continuing the count
// or, for a clause restarting on man moves, starting it afresh).  Each clause
// is computed on its own (the clauses of other numbers are not chained in).
//
// The engine's description of a clause's count.
MetricSpec statute_spec(const Clause& clause);
// (ValueSource::statute_table computes and keeps the counts: the exits read
// statute_value, the materials reached computed first.  Errors: a successor
// table missing, or a statute-aware win that plain play does not win
// (inconsistent tables).  Cost: one pass of the engine over the material on
// every thread, a few seconds for the largest 5-piece materials.)

// Moves of the winner needed to reach the end of a count of `plies` plies
// from a position of value v (for the side to move): ceil(d/2) for a win,
// floor(d/2) for a loss; -1 for a draw.
constexpr int winner_moves(Value v) {
  return v.wdl == Wdl::Win ? (v.plies + 1) / 2 : v.wdl == Wdl::Loss ? v.plies / 2 : -1;
}

}  // namespace damka
