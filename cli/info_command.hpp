// damka info, in three steps: the options CLI11 fills (cmd_info.cpp), the
// work (info_tables.cpp: find the table files of a folder, read each one's
// header, value counts and checksum) and the output (info_print.cpp: text or
// JSON).  info --stats is info_stats.hpp's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "common.hpp"
#include "damka/env.hpp"
#include "damka/table_file.hpp"

namespace damka::cli {

struct InfoOptions {
  std::string path;
  bool json = false, stats = false;
  int threads = 0;
  std::string memory, journal;
  // The Env every file of the command is opened through (cli::Context::env;
  // null: default_env()).  Set by the command, not by an option.
  Env* env = nullptr;
};

// One table file as info shows it.
struct TableInfo {
  std::string path;
  TableHeader h;
  CodeCounts counts;
  Status checksum;
};

// The table files to show: `path` itself, or the *.wdl, *.dtw and *.dtc
// files under the folder `path` (sorted), the stray temporary files a killed
// run left there, and the entries that could not be examined (warned on
// stderr as found; {"path", "error"} each).  An error (exit code 1) when the
// folder cannot be walked or holds no table.
struct TableFiles {
  std::vector<std::filesystem::path> files, strays;
  Json errors = Json::array();
};
Expected<TableFiles> find_table_files(const std::string& path);

// Reads one table file: its header (checked against its name), value counts
// (a distance table's draws from the WDL table beside it) and checksum.
// Every open and read goes through `env`.
Expected<TableInfo> inspect_table(const std::filesystem::path& path, Env& env);

// Runs `damka info` without --stats: finds, reads and prints the tables.
// Returns the exit code (1 when a file is refused).
int run_info(const InfoOptions& o, const Report& report);

// The output (info_print.cpp): each table as text or JSON, then the totals.
class InfoPrinter {
 public:
  InfoPrinter(const InfoOptions& o, const Report& report) : o_(o), report_(report) {}
  // A table read (info may be an error, or its checksum failed: then refused).
  void table(const std::filesystem::path& file, const Expected<TableInfo>& info);
  // The totals, the errors and the stray files; `rc` the exit code so far.
  void summary(const TableFiles& found, int rc) const;
  int refused() const { return refused_; }

 private:
  const InfoOptions& o_;
  const Report& report_;
  Json tables_ = Json::array(), errors_ = Json::array();
  std::uint64_t slots_[3] = {0, 0, 0}, bytes_[3] = {0, 0, 0};  // by metric
  int good_ = 0, refused_ = 0;
  std::vector<Variant> variants_;
};

}  // namespace damka::cli
