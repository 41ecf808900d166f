// Building tables on disk: `damka generate`.
//
// Every canonical material with both sides present and 2..N pieces is solved
// in build order (solver.hpp) by the pass engine (engine.hpp) and written as
// one file per metric (table_paths.hpp): always WDL, and DTW and DTC unless
// left out (GenerateOptions::metrics).  Materials a build converts into are
// read from their finished files through a bounded cache, never loaded
// whole; the material being built holds two progress levels in memory and
// streams its values to the files, within GenerateOptions::memory_budget.
// A material whose files exist and are valid (header, rules fingerprint,
// checksums) is skipped, so a killed run restarted with the same command
// resumes.
//
// Positions where the side to move has a capture are not stored: their
// entries are don't care (kDontCareCode, which compresses well) and readers
// value them by a search over the captures (value_oracle.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "damka/cluster.hpp"
#include "damka/engine.hpp"
#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/phase_profile.hpp"
#include "damka/table_file.hpp"
#include "damka/rules.hpp"
#include "damka/solver.hpp"

namespace damka {

struct GenerateOptions {
  int max_pieces = 4;
  std::filesystem::path out;
  int threads = 1;
  std::optional<Material> only;  // build this material (and what it needs) only
  bool dry_run = false;          // list what would be built, build nothing
  MetricSet metrics;             // WDL is always written
  Compression compression = Compression::Fast;  // of the DTW and DTC files
  // DTW and DTC files keep one side to move, the one that compresses better
  // (WriteOptions::keep_smaller_side, FORMAT.md 3.5, one side to move).  The
  // probe, the generator, verify and the statutes read such files (the other
  // side by a search over its moves); not the default: DTW probes of such
  // files read several blocks (README, `--one-side`).
  bool one_side = false;
  std::uint64_t memory_budget = ~std::uint64_t{0};  // bytes (the default: the machine's memory, see default_memory_budget)
  // Several ranks (mpirun): the job this process is one rank of; null or of
  // size 1: this process builds everything.  Each rank runs generate() with
  // the same options; they share `out` (a folder every machine sees).
  Cluster* cluster = nullptr;
  int ranks = 1;  // plan_generation only: plan for this many ranks (cluster's size when set)
  // Split materials of at least this many positions across the ranks, and
  // no others; unset: where the plan predicts it finishes sooner (rank_plan.hpp).
  std::optional<std::uint64_t> split_above;
  // Keep finished tables that later materials convert into in memory, as
  // far as memory_budget allows (faster; the files do not change).  Off:
  // every successor is read from its file (tests compare the two).
  bool keep_finished = true;
  // Every file operation of the run (env.hpp): the tables written and read,
  // the spilled level store, the lock and the notes.  Null: default_env().
  // Must outlive the run.
  Env* env = nullptr;
  // Test aids, empty in normal use (the tests' damka_faulty sets them):
  // job_progress_hook(rank, job) is called from a rank's building thread as
  // the job-th job it builds (from 1) makes progress (a test kills a rank
  // from it); before_unit becomes every build's BuildOptions::before_unit.
  std::function<void(int rank, int job)> job_progress_hook;
  std::function<void()> before_unit;
  // plan_generation: the calibration's rate (positions per second on one
  // thread) instead of timing one; 0: timed (a test sets it to compare
  // plans without the timing's noise).
  double calibrated_rate = 0;
};

// The default --memory: 80% of the machine's physical memory.
std::uint64_t default_memory_budget();
// "wdl,dtw,dtc" -> MetricSet (wdl is implied; unknown names are an error).
Expected<MetricSet> parse_metrics(std::string_view text);
std::string metrics_name(const MetricSet& m);  // "wdl,dtw,dtc"
// The table files a metric set writes.
std::vector<Metric> file_metrics(const MetricSet& m);

struct Prediction {
  std::uint64_t peak_bytes = 0;   // memory
  // The least memory the build needs with these threads (levels on disk,
  // no move graphs: MemoryPlan::minimum), and whether the budget allows it;
  // generate() refuses to start where a table does not fit (budget_refusal).
  std::uint64_t minimum_bytes = 0;
  bool fits = true;
  std::uint64_t disk_bytes = 0;   // the table files
  std::uint64_t spill_bytes = 0;  // temporary disk while building (0: none): the level file and saved codes
  // The levels solved in each LevelMode (engine.hpp; MemoryPlan::levels_by_mode).
  std::array<std::uint32_t, kLevelModes> levels_by_mode{};
  double seconds = 0;
  // Several ranks: when it starts and ends (seconds from the start; a split
  // material takes less than `seconds`, its time on one rank), and the
  // peak memory of a rank other than rank 0 when the material is split.
  double start = 0, finish = 0;
  std::uint64_t peak_bytes_other = 0;
};

struct TableReport {
  Material material;            // canonical
  std::uint64_t positions = 0;  // table slots
  enum class Action { Built, Skipped, Planned } action = Action::Planned;
  SideCounts white_to_move, black_to_move;  // black_to_move empty for symmetric materials (built tables only)
  double seconds = 0;
  std::uint64_t bytes[3] = {0, 0, 0};  // file sizes: WDL, DTW, DTC
  Prediction predicted;                // dry run: for tables to build
  bool spilled = false;                // built with its finished levels in a temporary file
  // Finished tables kept in memory while it was built (this run's, and
  // present ones loaded from their files for it: resident_tables.hpp), its
  // own codes included when it was kept for later materials; the dry run
  // predicts the same and counts it in predicted.peak_bytes.
  std::uint64_t resident_bytes = 0;
  // Built tables: the finished materials it read (those it converts into,
  // and theirs through captures; canonical, in the order they were opened)
  // and from where.  Fixed-size (the report is sent between ranks as
  // bytes): at most kMaxSuccessorReads of successor_count are listed.
  struct SuccessorRead {
    enum class From : std::uint8_t {
      Memory,  // kept in memory from earlier in this run (or loaded for an earlier material)
      Loaded,  // loaded into memory just before it (from its files or its saved codes)
      Files,   // read through its files (a block cache)
    };
    Material material;
    From from = From::Files;
  };
  static constexpr int kMaxSuccessorReads = 160;
  std::array<SuccessorRead, kMaxSuccessorReads> successor_reads{};
  int successor_count = 0;
  void add_successor_read(const Material& s, SuccessorRead::From from) {
    if (successor_count < kMaxSuccessorReads) successor_reads[static_cast<std::size_t>(successor_count)] = {s, from};
    ++successor_count;
  }
  int rank = 0;                        // several ranks: who builds it (RankJob::kAllRanks: split among all)
  // Built tables: where the time went (phase_profile.hpp); the phases' wall
  // times sum to about `seconds`.  generate() keeps it in the folder's
  // phase notes (phase_notes.hpp), which plan_generation reads.
  PhaseProfile profile;
};

// Progress, called from the building thread.
struct Progress {
  Material material;
  std::size_t table_number = 0, tables_total = 0;
  std::uint64_t done = 0, total = 0;                  // positions of this table
  std::uint64_t overall_done = 0, overall_total = 0;  // positions of every table this run builds
  double elapsed = 0;                                 // seconds since the run started
  // Before the table's build: a material whose files were present, being
  // loaded into memory for it (resident_tables.hpp); load_total 0 otherwise.
  Material loading;
  std::uint64_t load_done = 0, load_total = 0;  // positions of `loading`
};

struct GenerateCallbacks {
  std::function<void(const Progress&)> progress;       // may be empty
  std::function<void(const TableReport&)> table_done;  // may be empty
  std::function<void(const std::string&)> notice;      // may be empty: e.g. stale temporary files removed
};

// What generate() would build, in order, with predicted memory, disk and time
// on this machine (measured by a short calibration build in memory);
// materials already present and valid are marked Skipped.
Expected<std::vector<TableReport>> plan_generation(const Rules& rules, const GenerateOptions& opt);

// What generate() would refuse before building anything, for a plan_generation()
// plan: the planned table that needs the most memory above opt.memory_budget,
// named with its need (memory_shortfall, engine.hpp); ok when every table fits.
Status budget_refusal(const std::vector<TableReport>& plan, const GenerateOptions& opt);

// Builds the tables; stops at the first error (nothing half-written remains).
// Holds the output folder's lock (output_lock.hpp) while it runs: fails at
// once, naming the holder, when another run is writing there.
// On several ranks (opt.cluster): rank 0 holds the lock; every rank builds
// its share of the plan_ranks() plan and tells the others what it finished;
// table_done is called on the rank that built the table (rank 0 also for
// the tables present); rank 0 returns every table's report, the others
// their own.  An error on one rank is returned on that rank only: the
// caller must end the job (Cluster::abort) or the others may wait forever.
// While building, each rank keeps a note of what it builds beside the lock
// (rank_note_path); a run that finds notes left by a killed job names them.
Expected<std::vector<TableReport>> generate(const Rules& rules, const GenerateOptions& opt,
                                            const GenerateCallbacks& callbacks = {});

// <dir>/.damka-generate-<family>.rank<r>: what rank r of a running job builds.
std::filesystem::path rank_note_path(const Rules& rules, const std::filesystem::path& dir, int rank);

// Loads a material's DTW and DTC files from `dir` into a SolvedTable with
// true values in every entry: drawn positions come from its WDL file (the
// distance files leave them don't care, FORMAT.md 3.5), derived entries
// (value_oracle.hpp; a file may hold anything there) are resolved by the
// oracle from the materials it converts into: from `loaded` when it holds
// all of them (their tables with true values everywhere, e.g. loaded by
// this function before), else from their WDL, DTW and DTC files, which must
// then be in `dir` too.
// Cost: reads the three files whole, plus one pass with one has_capture() per
// slot and a search over each capture position's captures, on the OpenMP
// default number of threads.  Thread-safe if `loaded` is not changed meanwhile.
// Files are opened and read through `env` (env.hpp), which must outlive the call.
Expected<SolvedTable> load_solved_table(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                                        const TableSource* loaded = nullptr, Env& env = default_env());

// Whether the files of `metrics` of a material are present and valid for
// these rules; the error says what is wrong.  Reads through `env`.
Status check_material_files(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                            bool full_checksum, const MetricSet& metrics = {}, Env& env = default_env());

}  // namespace damka
