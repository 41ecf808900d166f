// The one retrograde pass engine: solves one canonical material for a set of
// metrics (metric_spec.hpp), within a memory budget, on any number of threads.
//
// Structure.  A men configuration with every king placement on the free
// squares (a *slice*, index.hpp) is closed under quiet king moves: with both
// sides to move it is a *unit* (for a symmetric material, whose tables hold
// White to move only, a unit is a configuration and its colour-reversed
// configuration).  Every other move is an *exit*: a man move raises the men's
// progress (sum of white men's rows + sum of 7 - black men's rows) by exactly
// one, a capture or promotion leads to another, finished material.  So the
// engine solves the progress *levels* from the highest down; inside a level
// every unit is independent and is solved by one thread from start to end
// (forward pass, then the distance-ordered passes) with no shared writes.
// A level with too few units for the threads is solved by teams of
// threads, each unit by one team (atomic frontier), teams side by side
// (LevelMode says how each level is solved; MemoryPlan counts them).  A kings-only material is one unit,
// the whole table; where its move graph does not fit, every thread sweeps
// it distance by distance, keeping 2 bytes per position and pass and one
// more (BuildOptions::kings_only).
//
// Memory.  Only two levels' values are held (the level being solved and the
// one above, which its man moves reach); finished levels go to a slot-ordered
// store, in memory when it fits the budget (its arrays passed on from one
// material to the next: BuildOptions::kept), else in a temporary file; other
// materials are read through SuccessorSource (files through a bounded cache,
// or tables in memory).  Output is streamed to a ValueSink in slot order.
//
// Determinism.  The values are the unique fixpoint of the pass, so they do
// not depend on the number of threads or on the order of work.
//
// Threads.  OpenMP teams of BuildOptions::threads: one parallel region per
// level with units (dynamic schedule, no barrier inside), but a team of
// threads on one unit meets at a barrier after every distance of every
// pass.  A level of fewer units than twice the threads is solved by teams
// of at least two threads, as many side by side as it has units (the
// others' on threads of their own, std::thread: each is an OpenMP team of
// its own).  With libgomp's default wait policy the threads that arrive first
// spin there; on a machine with other work they take the core the last
// thread needs, and 2 threads ran 2-4x slower than 1.  A caller on a shared
// machine should run with OMP_WAIT_POLICY=passive (read by the runtime when
// it loads: an environment setting of the process); the damka CLI sets it
// unless the user chose a policy.  On idle cores it costs nothing
// measurable.  BuildStats::profile says how busy the threads were.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/huge_pages.hpp"
#include "damka/index.hpp"
#include "damka/material.hpp"
#include "damka/metric_spec.hpp"
#include "damka/phase_profile.hpp"
#include "damka/position.hpp"
#include "damka/rules.hpp"

namespace damka {

// The passes a build runs, in order: the primary (dtw, or wdl when DTW is
// not built), then the secondaries; or a limited count alone.
struct PassList {
  std::vector<MetricSpec> specs;
  int dtc = -1, kings_only = -1;  // index in specs, or -1
  explicit PassList(const MetricSet& m);
  explicit PassList(const MetricSpec& limited);  // a limited count (metric_spec.hpp) as the only pass
  int size() const { return static_cast<int>(specs.size()); }
  const MetricSpec& primary() const { return specs[0]; }
};

// Reads the primary code (a DTW code, or a WDL code in a WDL-only build) of
// positions of finished materials.  One reader per thread; not thread-safe.
class SuccessorReader {
 public:
  virtual ~SuccessorReader() = default;
  // q: a position whose material is one of the source's, or whose side to
  // move has no pieces (lost in 0).  On failure returns 0 and keeps the
  // first error (error() non-empty).
  virtual std::uint16_t code(const Position& q) = 0;
  const std::string& error() const { return error_; }
  // The first error's code (ErrorCode::Io for a read that failed).
  ErrorCode error_code() const { return error_code_; }
  // Seconds this reader spent reading and decoding files (0 for tables in
  // memory): the phase profile's reads.
  double read_seconds() const { return read_seconds_; }

 protected:
  std::string error_;
  ErrorCode error_code_ = ErrorCode::Other;
  double read_seconds_ = 0;
};

class SuccessorSource {
 public:
  virtual ~SuccessorSource() = default;
  // Thread-safe.
  virtual std::unique_ptr<SuccessorReader> reader() const = 0;
  // Memory one reader may hold (its cache), for planning.
  virtual std::uint64_t reader_bytes() const { return 0; }
};

// Receives a material's values in slot order: codes[i] is pass i's codes
// (PassList order) for slots first .. first + n - 1; calls come in
// increasing, contiguous order and cover every slot once.  With
// BuildOptions::mark_derived, a derived position's code is kDontCareCode
// in every pass.
class ValueSink {
 public:
  virtual ~ValueSink() = default;
  virtual Status add(std::uint64_t first, std::span<const std::span<const std::uint16_t>> codes) = 0;
};

struct SideCounts {
  std::uint64_t wins = 0, draws = 0, losses = 0;
  int longest_win = 0;      // plies, by the primary metric (0 in a WDL-only build)
  int longest_win_dtc = 0;  // plies (0 when DTC is not built)
};

// The threads' unit scratch (each position's counts, exits, move graph and
// distance buckets: UnitSolver::Scratch) passed on from one build_material
// to the next (BuildOptions::scratch), so that the next material's units
// reuse pages the last one touched instead of faulting fresh ones in (about
// 3% of a kings-heavy 7-piece material's time went to the kernel zeroing
// them).  A build first gives back what it would not use itself: each
// array's pages beyond its own largest unit's need, the move graphs where
// its plan keeps none on some level, everything for a material swept
// (kings-only) or spilled, so that what is held never exceeds its plan.
// Not thread-safe: one building thread.
class KeptScratch {
 public:
  KeptScratch();
  ~KeptScratch();
  KeptScratch(const KeptScratch&) = delete;
  KeptScratch& operator=(const KeptScratch&) = delete;
  // Frees everything held (before memory is needed for something else).
  void release() noexcept;
  // Bytes its arrays hold in memory, all threads' (huge_resident).
  std::uint64_t bytes() const;
  struct Impl;  // engine.cpp
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

struct BuildStats {
  std::uint64_t positions = 0;  // slots
  SideCounts side[2];           // by side to move; side[1] empty for symmetric materials
  std::uint64_t peak_bytes = 0; // planned peak memory
  bool spilled = false;         // finished levels went to a temporary file
  double seconds = 0;
  // Where the time went (phase_profile.hpp): units or team (the levels),
  // flush, write (the store streamed to the sink), other (the set-up).
  PhaseProfile profile;
};

// Splits each level of one material among cooperating processes (MPI ranks,
// cluster.hpp): process part() of parts() solves the units i of a level with
// i % parts() == part() (a kings-only material, one unit: the chunks of its
// sweep, exchanging the moves that cross into another's chunks); after the
// level, every process holds the whole level (merge); only the writer()
// keeps the finished levels and streams them to its sink (the others' sinks
// receive nothing).  The values do not depend on the split.  Called from
// build_material's calling thread only.
class LevelSplit {
 public:
  virtual ~LevelSplit() = default;
  virtual int parts() const = 0;
  virtual int part() const = 0;
  virtual bool writer() const = 0;
  // Collective, once per level: tells every process whether this one
  // failed.  Returns an error when another process failed and this one did
  // not (then the level is not merged); otherwise ok.
  virtual Status agree(bool failed) = 0;
  // Collective, once per level and pass after agree() found no failure
  // (and once more for the level's derived bitmap when the build marks
  // derived positions): the bitwise AND of every process's array.  Each
  // process leaves the slots it did not set at kDontCareCode, and each slot is set
  // by exactly one process, so the AND fills in the others' values.
  virtual Status merge(std::span<std::uint16_t> codes) = 0;
  // Collective, in rounds while every process sweeps one kings-only
  // material (UnitSolver::solve_sweep): out[k] is what this process sends
  // to process k (out[part()] stays empty); `in` receives, replaced, what
  // the others sent to this one (in no particular order: the sweep's
  // entries commute).  `failed` as in agree():
  // an error when another process failed (then nothing is exchanged).
  // Cost: one round of messages, the entries' bytes through the network.
  virtual Status exchange(std::vector<std::vector<std::uint64_t>>& out, std::vector<std::uint64_t>& in,
                          bool failed) = 0;
  // Collective: how many processes passed true.
  virtual int count(bool flag) = 0;
};

// Kings-only materials: Auto keeps the unit's move graph where the budget
// has room for it (fastest: several times the memory, 5-piece materials and
// smaller with the default budget) and otherwise sweeps by distance with
// every thread (2 bytes per position and pass, and one); Sweep always
// sweeps, Team never does (the unit solver's team without a graph: about
// 30 bytes per position).  The values are the same; tests compare them.
enum class KingsOnly { Auto, Sweep, Team };

// BuildOptions::large_unit's default: 65536 positions (kings-heavy
// materials such as 4K1Mv1K: about 1.7 million a unit).
inline constexpr std::uint64_t kLargeUnit = std::uint64_t{1} << 16;

struct BuildOptions {
  MetricSet metrics;
  // A limited count (metric_spec.hpp; the statutes) run alone instead of
  // `metrics`, computed in memory only.  Its restarts must include captures
  // and promotions (it ends where the balance changes); it is a primary pass
  // (follows_wdl false).
  std::optional<MetricSpec> limited;
  int threads = 1;
  std::uint64_t memory_budget = ~std::uint64_t{0};  // bytes
  std::filesystem::path spill_dir;                   // where a store that does not fit in memory goes
  // The store (the finished values, 2 bytes per position and pass) goes to
  // its temporary file in spill_dir even where it would fit in the budget:
  // the generator's choice when the memory is worth more to the tables the
  // material captures into (generate_detail::resident_step).  No value
  // depends on it.  Cost: the store's bytes written once and read once.
  bool store_on_disk = false;
  // Called from the calling thread as work completes: positions done, total.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  // Null: this process solves every unit.  Else the split it takes part in.
  LevelSplit* split = nullptr;
  // Streams kDontCareCode (table_file.hpp) in every pass for the positions
  // whose value the oracle derives (value_oracle.hpp is_derived: the side
  // to move must capture), for table files.  The engine knows them from
  // its own move generation (no extra search); the levels it reads while
  // solving and BuildStats keep the true values.  Off: true values
  // everywhere (tables held in memory).  Cost: one bit per position of the
  // two levels held.
  bool mark_derived = false;
  // When set (a process that writes: no split, or the split's writer),
  // receives the primary pass's true code of every slot, derived positions
  // included, in slot order (resized to the table's slots): what the value
  // oracle would derive from the files, without its search.  The generator
  // keeps it for the materials built next (resident_tables.hpp).  Cost:
  // 2 bytes per slot, one copy of each level.  Its buffer comes from its
  // allocator's pool where it has one (the pages `kept` holds, taken right
  // after the store's).
  BigVector<std::uint16_t>* resolved = nullptr;
  // The spilled store's temporary file goes through it (env.hpp); null:
  // default_env().  Must outlive the build.
  Env* env = nullptr;
  // Where the in-memory store's arrays come from and go back to when the
  // build is done (huge_pages.hpp: pages a previous build touched need no
  // page fault); what the store and `resolved` do not take is released
  // before the levels are solved.  null: fresh arrays, freed.  Must
  // outlive the build.
  KeptArrays* kept = nullptr;
  // Where the threads' unit scratch comes from and goes back to when the
  // build is done (KeptScratch); null: fresh, freed.  Must outlive the build.
  KeptScratch* scratch = nullptr;
  // How kings-only materials (one unit: the whole table) are solved.
  KingsOnly kings_only = KingsOnly::Auto;
  // Units of at least this many positions are solved with their scattered
  // reads fetched ahead (a pipeline over each distance of a pass: their
  // arrays outgrow the caches); smaller ones are not.  No value depends on
  // it: a test sets 0 to run every unit of small tables through it.
  std::uint64_t large_unit = kLargeUnit;
  // Test aid (empty in normal use): called by each worker before it
  // gathers a unit or a chunk of one; a test throws std::bad_alloc from it
  // to check that running out of memory in a worker is a clean error.
  std::function<void()> before_unit;
};

// How a level is solved (chosen per level by the memory plan): its units
// in parallel, each by one thread keeping its move graph (UnitsGraph,
// fastest; where the graphs of all threads do not fit, those of as many
// as fit) or not (Units, less memory); unit by unit by teams of threads
// side by side, each team sharing one unit's move graph (TeamGraph) or
// none (Team), for levels of fewer units than twice the threads or whose
// units are too large for one thread each; or a kings-only material (one
// unit, the whole table) in sweeps by every thread (Sweep).
enum class LevelMode { UnitsGraph, Units, TeamGraph, Team, Sweep };
inline constexpr int kLevelModes = 5;
// "units_graph", "units", "team_graph", "team", "sweep" (the dry run's JSON).
std::string_view level_mode_name(LevelMode mode);

// What a build of `canonical` needs, before it starts.
struct MemoryPlan {
  std::uint64_t levels = 0;   // the largest pair of adjacent levels' values
  std::uint64_t units = 0;    // per-thread scratch for the largest unit
  std::uint64_t readers = 0;  // successor caches, all threads
  std::uint64_t store = 0;    // the finished values when kept in memory (0 when spilled)
  std::uint64_t spill_disk = 0;  // temporary disk when spilled
  std::uint64_t peak = 0;     // levels + units + readers + store
  std::uint64_t minimum = 0;  // peak when spilled: what no budget can go below
  bool spill = false;
  // The levels that build_material solves in each LevelMode at this budget
  // (indexed by LevelMode).
  std::array<std::uint32_t, kLevelModes> levels_by_mode{};
  // Of the UnitsGraph levels, those where only some threads keep their
  // units' graphs (the graphs of all do not fit).
  std::uint32_t levels_partly_graphed = 0;
};
// store_on_disk: the store goes to its temporary file even where it would
// fit (BuildOptions::store_on_disk).
MemoryPlan plan_memory(const Material& canonical, const MetricSet& metrics, int threads,
                       std::uint64_t reader_bytes, std::uint64_t budget, KingsOnly kings_only = KingsOnly::Auto,
                       bool store_on_disk = false);

// Solves `canonical` (every material it converts into must be readable from
// `successors`) and streams its values to `sink`.  Fails with a message naming
// the material when the budget is below plan_memory().minimum, when a
// successor cannot be read, or when memory runs out; nothing is half-written
// by the engine itself (the sink decides about its files).
Status build_material(const Rules& rules, const Material& canonical, const SuccessorSource& successors,
                      ValueSink& sink, const BuildOptions& options, BuildStats& stats);

// Successors held in memory: per canonical material, its primary codes by
// slot (a DTW or WDL code per slot).  The vectors must outlive the source.
class MemorySuccessors : public SuccessorSource {
 public:
  void add(const Material& canonical, const std::vector<std::uint16_t>* codes);
  std::unique_ptr<SuccessorReader> reader() const override;

  struct Entry {
    Material canonical;
    MaterialIndex index;
    const std::vector<std::uint16_t>* codes;
  };

 private:
  std::vector<Entry> entries_;
};

// Successors read from a function (slow; for callers that own their own
// lookup, such as the statutes).  `fn` must be thread-safe.
class FunctionSuccessors : public SuccessorSource {
 public:
  using Fn = std::function<Expected<std::uint16_t>(const Position&)>;
  explicit FunctionSuccessors(Fn fn) : fn_(std::move(fn)) {}
  std::unique_ptr<SuccessorReader> reader() const override;

 private:
  Fn fn_;
};

// Parses a memory size: "8G", "512M", "24GiB", "1.5g", "100000" (bytes).
Expected<std::uint64_t> parse_memory_size(std::string_view text);
// "3.2 GiB", "512 MiB", ...
std::string format_bytes(std::uint64_t bytes);
// Why a build needing `need` bytes (MemoryPlan::minimum) with `threads`
// threads cannot run within `budget`: "needs 100 MiB of memory with 2
// threads, limit 90 MiB (raise --memory or use fewer threads)", exact byte
// counts added where the two would read the same.  build_material's
// refusal, and generate()'s and the dry run's before anything is built.
std::string memory_shortfall(std::uint64_t need, int threads, std::uint64_t budget);

}  // namespace damka
