// Private to verify: the journal of a verify run (VerifyOptions::journal),
// so that a run stopped part way through (a 7-piece set takes hours) goes on
// where it stopped when the same command is run again.
//
// The journal is a small JSON file: per variant, per material, the tables
// found good (no mismatch, no file problem) with the size, modification time
// and inode of each of the material's files when it was checked:
//   {"format": "damka verify journal", "version": 1,
//    "variants": {"russian": {"2Kv1K": {"positions": 2976, "seconds": 0.01,
//        "files": {"wdl": {"size": 1234, "mtime_ns": ..., "inode": ...}, ...}}}}}
// A table is skipped by a later run only when every one of its files is
// still the same (same size, time and inode) and has the same metrics;
// a table with mismatches or a file problem is never recorded, so it is
// checked (and its mismatches listed) again.  The file is replaced whole
// after each table (replace_file: a kill leaves the old one or the new one).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/metric_spec.hpp"
#include "damka/rules.hpp"

namespace damka::verify_detail {

class VerifyJournal {
 public:
  // Reads the journal at `path`; none there: an empty one.  Fails, naming
  // the file, when it cannot be read (Io) or is not a journal (a table, a
  // note, anything else: InvalidArgument), so that no other file is ever
  // overwritten.  Cost: one read of the file.
  static Expected<VerifyJournal> open(const std::filesystem::path& path, Env& env);

  // The seconds the earlier check of `canonical` (for these rules, with
  // these metrics' files under `root`) took when it was found good and
  // its files have not changed since; nothing otherwise.  Cost: a stat per
  // file.
  std::optional<double> good(const Rules& rules, const std::filesystem::path& root, const Material& canonical,
                             const MetricSet& files) const;

  // Records `canonical` as good (its files as they are now), or forgets it
  // (good false), and replaces the file.  Io naming the journal when it
  // cannot be written.
  Status record(const Rules& rules, const std::filesystem::path& root, const Material& canonical,
                const MetricSet& files, bool good, std::uint64_t positions, double seconds);

 private:
  VerifyJournal(std::filesystem::path path, Env& env, nlohmann::json j)
      : path_(std::move(path)), env_(&env), j_(std::move(j)) {}
  // The files' stamps now; nothing when one cannot be stat'ed.
  std::optional<nlohmann::json> stamps(const Rules& rules, const std::filesystem::path& root,
                                       const Material& canonical, const MetricSet& files) const;

  std::filesystem::path path_;
  Env* env_;
  nlohmann::json j_;
};

}  // namespace damka::verify_detail
