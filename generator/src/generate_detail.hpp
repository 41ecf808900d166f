// Private to generate(): the steps a single process and each rank of
// several (generate_ranks.cpp) share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "damka/generate.hpp"
#include "resident_tables.hpp"
#include "saved_codes.hpp"

namespace damka::generate_detail {

inline constexpr std::uint64_t kCachePerThread = std::uint64_t{16} << 20;  // successor cache per thread

// A material's files in TableReport::bytes order.
inline constexpr Metric kFileMetrics[3] = {Metric::WDL, Metric::DTW, Metric::DTC};

// The materials to build: everything up to max_pieces, or `only` and what it
// needs, in build order.
std::vector<Material> targets(const GenerateOptions& opt);

// The materials of `order` marked in `build` whose build needs more memory
// than opt.memory_budget with opt.threads threads (build_material's check,
// made up front), each with that need.
std::vector<std::pair<Material, std::uint64_t>> over_budget(const std::vector<Material>& order,
                                                            const std::vector<bool>& build, const GenerateOptions& opt);
// The refusal for `short_of` (over_budget's): the material that needs the
// most, named with its need (memory_shortfall), and how many others fall
// short too; ok when it is empty.
Status memory_refusal(const std::vector<std::pair<Material, std::uint64_t>>& short_of, const GenerateOptions& opt);

// The prediction model of the plan (generate_plan.cpp).
// Positions per second of an in-memory build on one thread of this machine
// (a short build, some 0.5 s; CPU time, so other work on the machine hardly
// changes it).
double calibrate(const Rules& rules);
// How fast building material m from files runs, as a share of calibrate()'s rate.
double speed_share(const Material& m, std::uint64_t positions);

// The progress of table `number` (from 1) of `tables`: `done` of its `total`
// positions, and the run's (or this rank's) overall figures.
Progress table_progress(const Material& m, std::size_t number, std::size_t tables, std::uint64_t done,
                        std::uint64_t total, std::uint64_t overall_done, std::uint64_t overall_total, double elapsed);

// r for a material whose files are present: Skipped, with its file sizes.
void fill_present(const Rules& rules, const GenerateOptions& opt, TableReport& r);

// What keeping finished tables in memory leaves for building order[i] (m):
// resident.make_room() done, whether m is kept after its build, the present
// materials to load into memory first (ResidentTables::to_load), the bytes
// the tables hold meanwhile (m's own codes included when kept, the loaded
// ones too) and the budget left to the build.  The caller loads them and
// adds them to `resident` (a dry run adds their sizes).
struct ResidentStep {
  bool keep = false;
  bool store_on_disk = false;  // BuildOptions::store_on_disk
  std::vector<std::size_t> load;
  std::uint64_t held = 0;
  std::uint64_t budget = 0;
};
ResidentStep resident_step(ResidentTables& resident, std::size_t i, const Material& m, const MetricSet& metrics,
                           int threads, std::uint64_t budget);

// Builds the files of r.material (its successors' files must be finished)
// and fills r; with a split, this process's share (only the writer writes
// files).  Nothing half-written remains on failure.  With `resident`
// (r.material is its order[index]), successors are read from the tables
// it holds (present successors that resident_step says to load are read
// into it first, each said to talk.notice, their progress to talk.loading)
// and r.material is kept there when resident_step says so.
struct LoadTalk {
  std::function<void(const std::string&)> notice;                                 // may be empty
  std::function<void(const Material&, std::uint64_t, std::uint64_t)> loading;  // done, total; may be empty
};
Status build_table(const Rules& rules, const GenerateOptions& opt, LevelSplit* split,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress, TableReport& r,
                   ResidentTables* resident = nullptr, std::size_t index = 0, const LoadTalk& talk = {},
                   KeptArrays* kept = nullptr, KeptScratch* scratch = nullptr, SavedCodes* saved = nullptr);

// generate() on several ranks (generate_ranks.cpp).
// Tells `notice` about each rank note (rank_note_path) a killed job of
// several ranks left in `dir` and removes it: called by every run that holds
// the lock, so a plain resume clears them too.  Every listing, read and
// removal goes through `env`.  Cost: one directory listing.
void report_stale_notes(const Rules& rules, const std::filesystem::path& dir,
                        const std::function<void(const std::string&)>& notice, Env& env);

Expected<std::vector<TableReport>> generate_on_ranks(const Rules& rules, const GenerateOptions& opt,
                                                     const GenerateCallbacks& cb, Cluster& cluster);

}  // namespace damka::generate_detail
