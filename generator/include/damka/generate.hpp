// Building tables on disk: `damka generate`.
//
// Every canonical material with both sides present and 2..N pieces is solved
// in build order (solver.hpp) and written as three files per material (see
// table_paths.hpp): WDL, DTW and DTC.  A material whose three files exist and
// are valid (header, rules fingerprint, checksums) is skipped and its values
// loaded, so a killed run restarted with the same command resumes.
//
// Positions where the side to move has a capture are stored with their true
// values (the generator solves them anyway); the probe needs no search.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/solver.hpp"

namespace damka {

struct GenerateOptions {
  int max_pieces = 4;
  std::filesystem::path out;
  int threads = 1;
  std::optional<Material> only;  // build this material (and what it needs) only
  bool dry_run = false;          // list what would be built, build nothing
};

// Counts of one side to move.
struct SideCounts {
  std::uint64_t wins = 0, draws = 0, losses = 0;
  int longest_win = 0;  // plies (DTW)
  int longest_win_dtc = 0;
};

struct TableReport {
  Material material;          // canonical
  std::uint64_t positions = 0;  // table slots
  enum class Action { Built, Skipped, Planned } action = Action::Planned;
  SideCounts white_to_move, black_to_move;  // black_to_move empty for symmetric materials
  double seconds = 0;
  std::uint64_t bytes[3] = {0, 0, 0};  // file sizes: WDL, DTW, DTC
};

// Progress of the table being built: called from the building thread.
struct Progress {
  Material material;
  std::size_t table_number = 0, tables_total = 0;
  std::uint64_t done = 0, total = 0;  // positions of this table
};

struct GenerateCallbacks {
  std::function<void(const Progress&)> progress;       // may be empty
  std::function<void(const TableReport&)> table_done;  // may be empty
  std::function<void(const std::string&)> notice;      // may be empty: e.g. stale temporary files removed
};

// What generate() would build, in order (dry run); materials already present
// and valid are marked Skipped.
Expected<std::vector<TableReport>> plan_generation(const Rules& rules, const GenerateOptions& opt);

// Builds the tables; stops at the first error (nothing half-written remains).
// Holds the output folder's lock (output_lock.hpp) while it runs: fails at
// once, naming the holder, when another run is writing there.
Expected<std::vector<TableReport>> generate(const Rules& rules, const GenerateOptions& opt,
                                            const GenerateCallbacks& callbacks = {});

// Loads a material's DTW and DTC files from `dir` into a SolvedTable.
Expected<SolvedTable> load_solved_table(const Rules& rules, const std::filesystem::path& dir, const Material& canonical);

// Whether the three files of a material are present and valid for these
// rules; the error says what is wrong.
Status check_material_files(const Rules& rules, const std::filesystem::path& dir, const Material& canonical,
                            bool full_checksum);

}  // namespace damka
