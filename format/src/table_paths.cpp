// Table file locations (see table_paths.hpp).
#include "damka/table_paths.hpp"

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

}  // namespace damka
