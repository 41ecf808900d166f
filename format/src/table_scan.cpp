// Scanning a folder of tables (see table_scan.hpp).
#include "damka/table_scan.hpp"

#include <algorithm>
#include <cstdio>

#include "damka/table_paths.hpp"

namespace damka {
namespace {

namespace fs = std::filesystem;

bool is_table_file(const fs::path& p) {
  const auto ext = p.extension().string();
  return ext == ".wdl" || ext == ".dtw" || ext == ".dtc";
}

std::string hex64(std::uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The family names, in all_variants() order, without repeats.
std::vector<std::string> family_names() {
  std::vector<std::string> out;
  for (Variant v : all_variants()) {
    const std::string f = table_family(rules_of(v));
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

const Rules& family_rules(const std::string& family) { return rules_of(*parse_variant(family)); }

Expected<std::vector<fs::path>> table_files(const fs::path& dir, Env& env) {
  auto names = env.list_dir(dir);
  if (!names) return Error(dir.string() + ": " + names.message(), names.code());
  std::vector<fs::path> files;
  for (const std::string& name : *names)
    if (is_table_file(name)) files.push_back(dir / name);
  std::sort(files.begin(), files.end());
  return files;
}

bool is_folder(const fs::path& path, Env& env) {
  auto info = env.stat(path);
  return info && info->directory;
}

Status scan_family(const fs::path& folder, const std::string& family, TableFamilyFolder& out, Env& env) {
  auto files = table_files(folder, env);
  if (!files) return files.error();
  const Rules& expected = family_rules(family);
  out.family = family;
  out.folder = folder;
  out.files = static_cast<int>(files->size());
  for (const fs::path& f : *files) {
    auto reader = TableReader::open(f, FileAccess::Pread, env);
    if (!reader) {
      if (reader.code() == ErrorCode::Io && out.io_error.empty()) out.io_error = reader.message();
      out.problems.push_back(reader.message());
      continue;
    }
    const TableHeader& h = (*reader)->header();
    if (h.fingerprint != expected.fingerprint()) {
      out.problems.push_back(foreign_table_message(f, h, expected));
      continue;
    }
    if (std::find(out.variants.begin(), out.variants.end(), h.variant) == out.variants.end())
      out.variants.push_back(h.variant);
  }
  std::sort(out.variants.begin(), out.variants.end());
  return {};
}

}  // namespace

std::string foreign_table_message(const fs::path& file, const TableHeader& h, const Rules& expected) {
  return file.string() + ": built for " + std::string(rules_of(h.variant).name) + " rules, expected " +
         std::string(expected.name) + " (rules fingerprint " + hex64(h.fingerprint) + ", " +
         std::string(expected.name) + "'s is " + hex64(expected.fingerprint()) + ")";
}

fs::path tables_root(const fs::path& dir, const Rules& rules, Env& env) {
  const std::string family = table_family(rules);
  if (dir.filename() == family && !is_folder(dir / family, env) && is_folder(dir, env))
    return dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
  // "data/tables/russian/" names the same folder.
  if (dir.filename().empty() && dir.has_parent_path() && dir.parent_path() != dir)
    return tables_root(dir.parent_path(), rules, env);
  return dir;
}

std::vector<Variant> TableFolderScan::variants() const {
  std::vector<Variant> out;
  for (const auto& f : families)
    for (Variant v : f.variants)
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  std::sort(out.begin(), out.end());
  return out;
}

std::string TableFolderScan::io_error() const {
  for (const auto& f : families)
    if (!f.io_error.empty()) return f.io_error;
  return {};
}

const TableFamilyFolder* TableFolderScan::family_of(const Rules& rules) const {
  const std::string family = table_family(rules);
  for (const auto& f : families)
    if (f.family == family) return &f;
  return nullptr;
}

std::string TableFolderScan::describe() const {
  std::string s;
  for (const auto& f : families) {
    std::string names;
    for (Variant v : f.variants) names += (names.empty() ? "" : "/") + std::string(rules_of(v).name);
    s += (s.empty() ? "" : ", ") + (names.empty() ? f.family + " (no readable table)" : names) + " in " +
         f.folder.string();
  }
  for (const auto& u : unreadable) s += (s.empty() ? "" : ", ") + ("unreadable " + u);
  return s.empty() ? "none" : s;
}

Expected<TableFolderScan> scan_table_folder(const fs::path& given, Env& env) {
  fs::path dir = given;
  if (dir.filename().empty() && dir.has_parent_path() && dir.parent_path() != dir) dir = dir.parent_path();
  if (auto info = env.stat(dir); !info || !info->directory) {
    if (!info && info.code() != ErrorCode::NotFound)
      return Error(given.string() + ": " + info.message() + " (I/O error)", ErrorCode::Io);  // e.g. a path too long
    return Error(given.string() + ": " + (info ? "not a directory" : "no such directory"), ErrorCode::NotFound);
  }
  const auto names = family_names();
  TableFolderScan scan;
  auto direct = table_files(dir, env);
  if (!direct) return direct.error();
  const std::string leaf = dir.filename().string();
  if (!direct->empty()) {
    if (std::find(names.begin(), names.end(), leaf) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n + "/";
      return Error(given.string() + ": holds table files outside a variant subfolder (tables live in " + known +
                   " under the folder given to `damka generate -o`)");
    }
    scan.root = dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
    scan.family_given = true;
    TableFamilyFolder f;
    if (Status s = scan_family(dir, leaf, f, env); !s.ok()) return s.error();
    scan.families.push_back(std::move(f));
    return scan;
  }
  scan.root = dir;
  for (const auto& name : names) {
    const fs::path sub = dir / name;
    if (!is_folder(sub, env)) continue;
    TableFamilyFolder f;
    if (Status s = scan_family(sub, name, f, env); !s.ok()) {
      scan.unreadable.push_back(s.message());
      continue;
    }
    if (f.files > 0) scan.families.push_back(std::move(f));
  }
  return scan;
}

}  // namespace damka
