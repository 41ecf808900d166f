// `damka verify`: re-checks every stored value of every table in a directory
// by a one-ply search over the values it depends on (successors' values
// through the value oracle; a capture position's entries are derived, never
// read, so they are not checked):
//   - a win in d has a move to a loss in d-1 and none to a shorter loss;
//   - a loss in d has only moves to wins, the longest in d-1 (d = 0: no move);
//   - a draw has no move to a loss and a move to a draw;
// the same for DTC (a capture or promotion counts 1; the winner's moves are
// those that keep the win), and the WDL file must agree with the DTW file.
// Materials built without DTW (--metrics wdl) are checked by their WDL one
// ply deep (a win has a move to a loss, a loss only moves to wins, a draw no
// move to a loss and one to a draw): consistency, not the proof that
// distances give; their DTC file, if any, is checked as above.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"

namespace damka {

struct VerifyMismatch {
  Material material;
  std::string metric;  // "wdl", "dtw" or "dtc"
  std::string fen;
  std::string stored, expected;  // values as text ("win in 7", "draw", ...)
};

struct VerifyReport {
  Material material;
  std::uint64_t positions = 0;
  std::uint64_t mismatches = 0;
  double seconds = 0;
  std::string error;  // not empty: the table could not be verified (a file it needs is missing or bad)
  bool error_in_dependency = false;  // the bad file is another table's (reported with that table)
};

struct VerifyCallbacks {
  std::function<void(const Material&, std::uint64_t done, std::uint64_t total)> progress;
  std::function<void(const VerifyReport&)> table_done;
  std::function<void(const VerifyMismatch&)> mismatch;  // at most `max_listed` calls per table
};

// The canonical materials with table files in dir (for these rules), in build order.
Expected<std::vector<Material>> tables_in(const Rules& rules, const std::filesystem::path& dir);

// Verifies every table found.  A table whose files, or those of a table it
// depends on, cannot be read or are for other rules gets a report with
// `error` set, and the others are still verified.  Mismatches are counted in
// the reports, not errors.  Fails only when dir holds no folder for the rules.
Expected<std::vector<VerifyReport>> verify_tables(const Rules& rules, const std::filesystem::path& dir, int threads,
                                                  const VerifyCallbacks& cb, int max_listed = 10);

std::string describe(std::uint16_t code);  // "win in 7 plies", "loss in 0 plies", "draw"

}  // namespace damka
