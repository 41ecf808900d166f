// Small helpers shared by the subcommands: one way to report errors (text on
// stderr, or with --json one JSON object on stdout), one way to choose the
// variant of a tables folder from its headers, one note for shared folders.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "damka/expected.hpp"
#include "damka/probe.hpp"
#include "damka/rules.hpp"
#include "damka/table_scan.hpp"

namespace damka::cli {

using Json = nlohmann::ordered_json;

// The exit code of an error, by its code (README, "Exit codes"): 2 for the
// caller's input (InvalidArgument, InvalidPosition), 1 for everything else
// (missing or bad files, I/O, a failed check).  3 (verify's mismatches) is
// not an error's: verify chooses it.
int exit_code_of(ErrorCode code);

// How a command reports.  Every command's JSON is one object on stdout with
// "command", and "variant" and "folder" where it has them; an error under
// --json is {"command", "error", "exit_code", ...context} on stdout.
class Report {
 public:
  Report(std::string command, bool json) : command_(std::move(command)), json_(json) {}
  bool json() const { return json_; }
  const std::string& command() const { return command_; }
  // Context added to the error object (e.g. variant, folder).
  void set(const std::string& key, Json value) { context_[key] = std::move(value); }
  // Prints the error and returns `code` (so: rc = report.fail(2, "...")).
  int fail(int code, const std::string& message) const;
  // The same for a library error, its exit code chosen by its code
  // (exit_code_of), never by its text.
  int fail(const Error& error) const { return fail(exit_code_of(error.code()), error.message()); }
  // A warning: always on stderr (stdout stays one JSON document).
  void warn(const std::string& message) const;
  // A JSON object beginning with "command" and the context.
  Json object() const;

 private:
  std::string command_;
  bool json_;
  Json context_ = Json::object();
};

// The rules of a named variant, or an InvalidArgument error naming the known variants.
Expected<const Rules*> variant_named(const std::string& name);
// The same, or nullptr after reporting that error (exit code 2).
const Rules* lookup_variant(const Report& report, const std::string& name, int& rc);

// The bytes of a --memory option: `text`, or the default budget (generate's,
// 80% of the machine's memory) when it is empty; false after reporting a
// bad size (exit code 2).
bool memory_option(const Report& report, const std::string& text, std::uint64_t& bytes, int& rc);
// The same as a value: the bytes, or an InvalidArgument error ("--memory: ...").
Expected<std::uint64_t> memory_bytes(const std::string& text);

// How much memory this process has held at most so far (its peak resident
// set, getrusage), against the --memory budget: the summaries of generate,
// verify, statutes and info --stats end with it, so a user sees whether the
// budget was kept without /usr/bin/time.  Words: "peak memory 971 MiB, 95%
// of the 1.0 GiB budget"; JSON: "peak_rss_bytes" and "memory_budget_bytes"
// set in `j`.  Cost: one system call.
std::uint64_t peak_rss_bytes();
std::string peak_memory_words(std::uint64_t budget);
void add_peak_memory(Json& j, std::uint64_t budget);

// The variant for a tables folder: `given` when not empty; else the one
// variant named by the folder's table headers for which `accepts` holds
// (the FEN parses, the rulebook governs it, ...), or the only variant there;
// else an error saying which variants are there (InvalidArgument: the
// arguments do not choose one).  `what` names the test in messages ("the FEN", ...).
Expected<const Rules*> choose_variant(const std::string& given, const TableFolderScan& scan,
                                      const std::function<bool(const Rules&)>& accepts, const std::string& what);

// How info and verify name a temporary table file found in a table folder:
// "temporary file <p> of damka process <pid>, still running ..." when the
// pid in its name (table_paths.hpp) is a damka process running on this
// machine (a `damka generate` writing into the folder now), else "stray
// temporary file <p> (left by a killed run; ...)".  Cost: a kill(pid, 0)
// and a read of /proc/<pid>/comm.
std::string temp_file_words(const std::filesystem::path& p);

// "" or, for a variant whose tables live in another variant's folder (Filipino
// in brazilian/), one sentence saying so.
std::string shared_folder_note(const Rules& rules, const std::filesystem::path& root);

// Names of variants, "russian, english".
std::string variant_list(const std::vector<Variant>& vs);

// A --threads value: 0 means every core.
inline int resolve_threads(int requested) {
  return requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The directory of the running executable (rulebooks are looked up near it).
inline std::filesystem::path exe_dir() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p.parent_path();
}

// Generate's checks and JSON, kept here so generate's own file stays about
// generating: `-m` must fit in `-n`; the top-level object of its JSON.
std::string material_outside_pieces(const std::string& material, int pieces, int max_pieces);
Json generate_json(const Rules& rules, const std::filesystem::path& out, Json tables);

// Opens the tables of `rules` under `root` for a command that reads them
// (probe, annotate): each read problem the Tablebase meets is warned once,
// "tables_folder" is set on the report.  An error (NotFound or Io: exit
// code 1) when the folder cannot be opened or holds no table of the
// variant.  `topt.on_error` is replaced.
Expected<std::unique_ptr<Tablebase>> open_command_tables(Report& report, const Rules& rules,
                                                         const std::filesystem::path& root, TablebaseOptions topt);

}  // namespace damka::cli
