// damka info --stats DIR: the statistics of every material of every variant
// in a tables folder (probe/include/damka/material_stats.hpp computes them;
// probe/include/damka/stats_report.hpp writes their JSON).
#pragma once

#include <cstdint>
#include <string>

#include "common.hpp"

namespace damka::cli {

// Prints the statistics of the folder `dir` (text, or JSON under
// report.json()) with `threads` threads within about `memory` bytes (the
// threads' buffers, then the successors' block cache: one variant's at a
// time), with a progress line on stderr; returns the exit code (1 when a
// table is missing, damaged or unreadable, 2 when `dir` is not a folder).
// The tables are read through `env` (null: default_env()).  `journal` (not
// empty): a ResultsJournal of kind "stats" (results_journal.hpp) that
// gives the materials recorded whose files are unchanged and records the
// others as they are counted; a file that is no such journal: exit 2.
int info_stats(const std::string& dir, int threads, std::uint64_t memory, const Report& report, Env* env,
               const std::string& journal = {});

}  // namespace damka::cli
