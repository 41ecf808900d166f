// Private to verify: the one-ply re-check of one material, level by level
// in bounded memory (verify.hpp "Bounded memory").
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/metric_spec.hpp"
#include "damka/rules.hpp"
#include "damka/stats_tally.hpp"
#include "damka/verify.hpp"
#include "resident_tables.hpp"

namespace damka::verify_detail {

// Memory the check of `canonical` holds for its two levels (the largest
// pair of adjacent levels, with the metrics in `files`), without the
// successor caches.
std::uint64_t level_bytes(const Material& canonical, const MetricSet& files);

struct MaterialOutcome {
  std::uint64_t mismatches = 0;
  Status status;              // not ok: the material could not be checked
  bool in_dependency = false; // the failure was reading another material's file
  // What info --stats counts over every slot (its true values; meaningful
  // only when status is ok and there are no mismatches).
  StatsTally tally;
};

// Finished materials of this run kept in memory (resident_tables.hpp): read
// by later materials without a block decode or the oracle's search.
struct Residency {
  const ResidentTables* primary = nullptr;  // true primary codes (DTW, or WDL without DTW files)
  const ResidentTables* dtc = nullptr;      // true DTC codes
  std::uint64_t held = 0;                   // bytes they hold, and what this material keeps
  bool keep = false;                        // keep this material's true codes (set kept_*)
  ResidentTables::Codes kept_primary, kept_dtc;
};

// Checks every stored value of `canonical` (its WDL file, and its DTW and
// DTC files as `files` says) under `root` one ply deep, reading every
// material it converts into through bounded block caches.  `listed` counts
// mismatches passed to `mismatch` (at most opts.max_listed); `done` grows
// by the positions checked, and `progress` is called from the calling
// thread as it grows.  Successors are read from `residency`'s tables where
// they are there; the block caches get what the budget leaves after the
// levels and residency.held.  Threads: opts.threads (OpenMP); the outcome does not
// depend on them.
MaterialOutcome check_material(const Rules& rules, const std::filesystem::path& root, const Material& canonical,
                               const MetricSet& files, const VerifyOptions& opts,
                               const std::function<void(const VerifyMismatch&)>& mismatch,
                               std::atomic<std::uint64_t>& done, const std::function<void()>& progress,
                               Residency& residency);

}  // namespace damka::verify_detail
