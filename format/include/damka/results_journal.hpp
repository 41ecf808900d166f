// A journal of per-material results, so that a long run over a tables
// folder (`damka verify`, `damka info --stats`: hours for a 7-piece set)
// that stops part way through goes on where it stopped when the same command
// is run again.
//
// The journal is a small JSON file of one kind ("verify", "stats",
// "statutes"):
//   {"format": "damka verify journal", "version": 2,
//    "variants": {"russian": {"2Kv1K": {...the result..., "files":
//        {"wdl": {"size": 1234, "mtime_ns": ..., "inode": ...}, ...,
//         "reads": "<16 hex digits>"}}}}}
// with, per table family and material, the caller's result (a JSON object)
// and the size, modification time and inode of each of the material's
// files when it was computed, and ("reads") a digest of those of every file
// of the materials it converts into (successors_closure(): the tables a
// result reads).  A result is given back only while every one of those
// files is the same (same size, time and inode; none added, none gone) and
// the caller asks with the same metrics, so a rebuilt or changed table is
// computed again, and so is every result that read it.  The file is replaced whole at each record (replace_file: a kill
// leaves the old one or the new one).  A file that is not a journal of the
// kind asked for is refused, never overwritten.
//
//   auto j = damka::ResultsJournal::open("verify.journal", "verify", env);
//   if (auto r = j->find(rules, root, m, metrics)) { ...reuse *r... }
//   else { ...compute...; j->record(rules, root, m, metrics, R"({"positions": 10})"); }
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka {

class ResultsJournal {
 public:
  // Reads the journal at `path` (none there: an empty one, written at the
  // first record).  Fails naming the file: Io when it cannot be read,
  // InvalidArgument when it is not a journal of `kind` (a table, a note, a
  // journal of another kind or version).  Cost: one read of the file.
  static Expected<ResultsJournal> open(const std::filesystem::path& path, std::string_view kind, Env& env);
  ResultsJournal(ResultsJournal&&) noexcept;
  ResultsJournal& operator=(ResultsJournal&&) noexcept;
  ~ResultsJournal();

  // The result recorded for `canonical` (its table files under `root`, the
  // folder holding the rules' family folder, of the metrics `files`; WDL
  // is always one) as the JSON text of an object without its "files", when
  // every one of those files, and of the materials it converts into, is
  // unchanged since; nothing otherwise.  Cost: a stat per file (three per
  // material converted into).
  std::optional<std::string> find(const Rules& rules, const std::filesystem::path& root, const Material& canonical,
                                   const std::vector<Metric>& files) const;

  // Records `result` (the JSON text of an object) for `canonical` with its
  // files as they are now, and replaces the journal's file.  A file that
  // cannot be stat'ed records nothing (the result would never be found).
  // Io naming the journal when it cannot be written; InvalidArgument when
  // `result` is not a JSON object.
  Status record(const Rules& rules, const std::filesystem::path& root, const Material& canonical,
                const std::vector<Metric>& files, std::string_view result);
  // Forgets `canonical`'s result (if any), replacing the file.  Io as record.
  Status forget(const Rules& rules, const Material& canonical);

  const std::filesystem::path& path() const;

 private:
  struct Impl;
  explicit ResultsJournal(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace damka
