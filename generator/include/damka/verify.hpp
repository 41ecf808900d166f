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
//
// Bounded memory.  A material is checked level by level, as the generator
// builds it (engine.hpp: a man move raises the men's progress by one, king
// moves keep it): the values of the level being checked and of the one
// above are decoded from the material's own files block by block (derived
// entries resolved by the oracle), and every other material is read
// through the generator's bounded successor readers (file_successors.hpp).
// So the peak memory is that of the largest pair of adjacent levels plus a
// share of a block cache per thread, whatever the folder holds; a material whose pair
// of levels does not fit VerifyOptions::memory_budget is reported as not
// verifiable (naming the memory it needs).
//
// Files before values.  Before any value is checked, every file's name is
// matched against its header (rules, material, metric, size): a missing,
// foreign, damaged or mislabelled file is reported once (VerifyFileProblem),
// the table it belongs to is reported with that problem, and every table
// whose check reads it is reported as not verifiable (error_in_dependency),
// never as mismatches.  A missing file is one that another table present
// needs: a material some table converts into, or the DTW/DTC file of a
// material that a table with DTW/DTC converts into.  Names that are no
// material of a table (unparsable, not canonical, a side without pieces,
// more pieces than the board or the index holds) are stray files: listed,
// never opened.
//
// A journal for long runs.  With VerifyOptions::journal set, each table
// found good is recorded there (with its files' size, time and inode) as
// soon as it is checked, and a later run with the same journal skips the
// tables recorded whose files have not changed (reported with `journaled`
// set): a run stopped part way through goes on where it stopped.  The
// tables it skips that later ones read are loaded into memory as the
// generator loads present tables (resident_tables.hpp), within the budget.
// With VerifyOptions::stats_journal set, each table found good also gets
// the statistics record `damka info --stats` keeps (stats_tally.hpp),
// counted from the values the check found true; the tables this run skips
// get none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "damka/env.hpp"
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
  bool journaled = false;  // found good by an earlier run (VerifyOptions::journal), its files unchanged:
                           // not checked again; `seconds` is that check's
};

// A file that is not what its name says, or that a table needs and is
// missing, or a name that is no table's.
struct VerifyFileProblem {
  enum class Kind : std::uint8_t {
    Missing,   // needed by a table present, not there
    Bad,       // unreadable, damaged, for other rules, or holding another table than its name says
    Stray,     // a table file name that names no table (never opened)
  };
  Kind kind = Kind::Bad;
  std::filesystem::path path;
  std::string message;  // names the file and what is wrong
};
// "missing", "bad", "stray"
const char* file_problem_name(VerifyFileProblem::Kind kind);

// Progress of the whole run, called from the calling thread.
struct VerifyProgress {
  Material material;                                   // being checked
  std::size_t table_number = 0, tables_total = 0;      // 1-based
  std::uint64_t done = 0, total = 0;                   // positions of this table
  std::uint64_t overall_done = 0, overall_total = 0;   // positions of every table to check
  double elapsed = 0;                                  // seconds since the run started
  // Loading a table the journal skipped into memory before `material` is
  // checked (load_total 0: not loading).
  Material loading;
  std::uint64_t load_done = 0, load_total = 0;
};

struct VerifyCallbacks {
  std::function<void(const VerifyProgress&)> progress;
  std::function<void(const VerifyFileProblem&)> file_problem;  // each problem once, before any table is checked
  std::function<void(const VerifyReport&)> table_done;
  std::function<void(const VerifyMismatch&)> mismatch;  // at most `max_listed` calls per table
};

struct VerifyOptions {
  VerifyOptions() = default;
  explicit VerifyOptions(int thread_count) : threads(thread_count) {}
  int threads = 1;
  std::uint64_t memory_budget = ~std::uint64_t{0};  // bytes (the CLI's default: generate's)
  int max_listed = 10;                               // mismatches passed to the callback, per table
  std::optional<Material> only;                      // check this material (canonical) alone; the files of
                                                     // what it reads are still checked by name and header
  // Every stat, listing, open and read of the tables goes through it
  // (env.hpp); null: default_env().  Must outlive verify_tables().
  Env* env = nullptr;
  // Not empty: the journal to skip tables by and record them in (see above;
  // created when missing).  Must not be a table file or anything but a
  // journal: such a file is refused, never overwritten.
  std::filesystem::path journal;
  // Not empty: a journal of statistics (kind "stats", the one `damka info
  // --stats --journal FILE` reads and writes) to record each table found
  // good in, with what info --stats counts (stats_tally.hpp), from the
  // values this check found true: a later info --stats with that journal
  // counts only the tables not recorded (those the verify journal skipped,
  // those with mismatches or errors).  Created when missing; refused, never
  // overwritten, when it is anything else.
  std::filesystem::path stats_journal;
};

struct VerifyResult {
  std::vector<VerifyFileProblem> files;  // missing, bad and stray files, each once
  std::vector<VerifyReport> tables;      // every table present, in build order
  std::string journal_error;             // not empty: the journal could not be written (the first failure;
                                         // the checks went on, their verdicts stand, but are not recorded)
  std::string stats_journal_error;       // the same for VerifyOptions::stats_journal
  std::size_t stats_recorded = 0;        // tables whose statistics went to VerifyOptions::stats_journal
};

// The canonical materials with table files in dir (for these rules), in
// build order (stray names left out).
Expected<std::vector<Material>> tables_in(const Rules& rules, const std::filesystem::path& dir);

// Verifies every table found.  A table whose files, or those of a table it
// depends on, are missing or bad gets a report with `error` set, and the
// others are still verified.  Mismatches are counted in the reports, not
// errors.  Fails only when dir holds no folder for the rules (or it cannot
// be listed), or a journal is not one (ResultsJournal::open of kind "verify" or "stats":
// InvalidArgument naming it; Io when it cannot be read).  The verdicts do not depend on threads or memory_budget.
// Cost: about one generation's work per table (move generation and a
// successor read per move), on opts.threads threads; memory as above.
Expected<VerifyResult> verify_tables(const Rules& rules, const std::filesystem::path& dir, const VerifyOptions& opts,
                                     const VerifyCallbacks& cb = {});

std::string describe(std::uint16_t code);  // "win in 7 plies", "win in 1 ply", "draw" (describe_value, words.hpp)

}  // namespace damka
