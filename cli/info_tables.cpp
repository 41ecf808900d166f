// damka info, the work: the table files of a folder and what each holds
// (info_command.hpp).
#include <algorithm>
#include <iostream>

#include "damka/table_paths.hpp"
#include "info_command.hpp"

namespace damka::cli {
namespace {

namespace fs = std::filesystem;

bool is_table_name(const fs::path& p) {
  const auto ext = p.extension().string();
  return ext == ".wdl" || ext == ".dtw" || ext == ".dtc";
}

}  // namespace

Expected<TableFiles> find_table_files(const std::string& path) {
  TableFiles found;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    found.files.push_back(path);
    return found;
  }
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (temp_table_file_pid(it->path().filename().string()) >= 0) {
      found.strays.push_back(it->path());
      continue;
    }
    if (!is_table_name(it->path())) continue;
    // An entry that cannot be examined (a symlink loop, a FIFO, ...) is
    // an error of its own; the other tables are still shown.
    std::error_code entry_ec;
    if (!it->is_regular_file(entry_ec) && !entry_ec) {
      if (it->is_directory(entry_ec)) continue;
      entry_ec = std::make_error_code(std::errc::invalid_argument);
    }
    if (entry_ec) {
      const std::string msg = it->path().string() + ": " +
                              (entry_ec == std::errc::invalid_argument ? std::string("not a regular file")
                                                                       : entry_ec.message());
      std::cerr << "damka info: " << msg << "\n";
      found.errors.push_back({{"path", it->path().string()}, {"error", msg}});
      continue;
    }
    found.files.push_back(it->path());
  }
  if (ec) return Error(path + ": " + ec.message(), ErrorCode::Io);
  std::sort(found.files.begin(), found.files.end());
  std::sort(found.strays.begin(), found.strays.end());
  for (const fs::path& p : found.strays)
    std::cerr << "damka info: " << temp_file_words(p) << "\n";
  if (found.files.empty() && found.errors.empty())
    return Error("no tables (*.wdl, *.dtw, *.dtc) in " + path, ErrorCode::NotFound);
  return found;
}

Expected<TableInfo> inspect_table(const fs::path& path, Env& env) {
  auto reader = TableReader::open(path, FileAccess::Pread, env);
  if (!reader) return reader.error();
  TableInfo t;
  t.path = path.string();
  t.h = (*reader)->header();
  // The name must say what the header holds (a renamed or swapped file).
  if (std::string why = table_name_problem(path, t.h.material, t.h.metric); !why.empty())
    return Error(why, ErrorCode::Corrupt);
  // A distance table's draws are read from the WDL table beside it (FORMAT.md 3.5).
  std::unique_ptr<TableReader> wdl;
  if (t.h.metric != Metric::WDL) {
    fs::path wdl_path = path;
    wdl_path.replace_extension(".wdl");
    if (auto w = TableReader::open(wdl_path, FileAccess::Pread, env); w) wdl = std::move(*w);
    else if (t.h.format_version >= 5)
      return Error(path.string() + ": its draws are read from " + wdl_path.string() + ": " + w.message());
  }
  auto counts = count_codes(**reader, wdl.get());
  if (!counts) return counts.error();
  t.counts = std::move(*counts);
  t.checksum = (*reader)->verify_file_checksum();
  return t;
}

int run_info(const InfoOptions& o, const Report& report) {
  auto found = find_table_files(o.path);
  if (!found) return report.fail(found.error());
  InfoPrinter printer(o, report);
  for (const fs::path& f : found->files) printer.table(f, inspect_table(f, env_or_default(o.env)));
  const int rc = found->errors.empty() && printer.refused() == 0 ? 0 : 1;
  printer.summary(*found, rc);
  return rc;
}

}  // namespace damka::cli
