// Private to verify: what a tables folder holds, checked by name and header
// before any value is read (verify.hpp "Files before values").
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/metric_spec.hpp"
#include "damka/rules.hpp"
#include "damka/verify.hpp"

namespace damka::verify_detail {

// A table file: a material's file of one metric.
struct FileKey {
  Material material;
  Metric metric;
  friend auto operator<=>(const FileKey&, const FileKey&) = default;
};

struct FolderCheck {
  std::filesystem::path family_dir;
  std::vector<Material> order;                // materials with a file under a valid name, build order
  std::map<Material, MetricSet> metrics;      // per material: which distance files it has (by name)
  std::map<FileKey, std::string> problems;    // bad or missing files: what is wrong
  std::vector<VerifyFileProblem> reported;    // the same, and stray names, in a stable order

  // The file problem that stops `m` from being checked, if any: its own
  // (`own` set) or one of a material it reads.  Empty when none.
  std::string blocker(const Material& m, bool& own) const;
  // Marks every file of `m` bad (its check found a damaged block).
  void mark_bad(const Material& m, const std::string& why);
};

// Lists `family_dir` (the rules' table folder), sorts out stray names, opens
// every table file's header and checks it against its name (rules,
// material, metric, size), and finds the files that tables present need
// but that are missing.  Fails only when the folder cannot be listed.
// Every listing and open goes through `env`.  Cost: one header and
// block-index read per file.
Expected<FolderCheck> check_folder(const Rules& rules, const std::filesystem::path& family_dir, Env& env);

}  // namespace damka::verify_detail
