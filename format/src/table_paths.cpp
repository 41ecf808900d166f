// Table file locations (see table_paths.hpp).
#include "damka/table_paths.hpp"

#include <algorithm>
#include <cctype>

namespace damka {

std::string table_family(const Rules& rules) {
  for (Variant v : all_variants())
    if (rules_of(v).fingerprint() == rules.fingerprint()) return std::string(rules_of(v).name);
  return std::string(rules.name);
}

std::filesystem::path table_dir(const std::filesystem::path& dir, const Rules& rules) {
  return dir / table_family(rules);
}

std::filesystem::path table_path(const std::filesystem::path& dir, const Rules& rules, const Material& canonical,
                                 Metric metric) {
  return table_dir(dir, rules) / (canonical.name() + "." + std::string(metric_name(metric)));
}

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 18 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::string table_name_problem(const std::filesystem::path& path, const Material& material, Metric metric) {
  const std::string want = material.name() + "." + std::string(metric_name(metric));
  if (path.filename() == want) return {};
  const std::string ext = path.extension().string();
  auto named = Material::parse(path.stem().string());
  const bool is_metric = ext == ".wdl" || ext == ".dtw" || ext == ".dtc";
  if (!named || !is_metric)
    return path.string() + ": holds the " + material.name() + " " + std::string(metric_name(metric)) +
           " table, but its name is not a table's (" + want + ")";
  return path.string() + ": holds the " + material.name() + " " + std::string(metric_name(metric)) +
         " table, not the " + named->name() + " " + ext.substr(1) + " table its name says";
}

long temp_table_file_pid(std::string_view name) {
  // <material>.<wdl|dtw|dtc>.tmp.<pid>.<n>, <material>.levels.tmp.<pid>.<n>
  // (the generator's finished levels of a material too large for memory)
  // or <material>.codes.tmp.<pid>.<n> (its saved codes of a finished table)
  const std::size_t tmp = name.rfind(".tmp.");
  if (tmp == std::string_view::npos) return -1;
  const std::string_view table = name.substr(0, tmp), rest = name.substr(tmp + 5);
  const std::size_t dot = rest.find('.');
  if (dot == std::string_view::npos || !all_digits(rest.substr(0, dot)) || !all_digits(rest.substr(dot + 1))) return -1;
  const std::size_t ext = table.rfind('.');
  if (ext == std::string_view::npos) return -1;
  const std::string_view metric = table.substr(ext + 1);
  if (metric != "wdl" && metric != "dtw" && metric != "dtc" && metric != "levels" && metric != "codes") return -1;
  if (!Material::parse(table.substr(0, ext)).ok()) return -1;
  return std::stol(std::string(rest.substr(0, dot)));
}

std::vector<std::filesystem::path> temp_table_files(const std::filesystem::path& family_dir, Env& env) {
  std::vector<std::filesystem::path> found;
  auto names = env.list_dir(family_dir);
  if (!names) return found;
  for (const std::string& name : *names)
    if (temp_table_file_pid(name) >= 0) found.push_back(family_dir / name);
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace damka
