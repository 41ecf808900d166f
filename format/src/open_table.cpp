// Opening a table file and checking it is the one expected (open_table.hpp).
#include "damka/open_table.hpp"

#include <string>

#include "damka/table_scan.hpp"

namespace damka {

Status check_table_identity(const TableHeader& h, const Rules& rules, const Material& canonical, Metric metric,
                            const std::filesystem::path& file) {
  if (h.fingerprint != rules.fingerprint()) return Error(foreign_table_message(file, h, rules), ErrorCode::Corrupt);
  if (h.material != canonical || h.metric != metric)
    return Error(file.string() + ": holds the " + h.material.name() + " " + std::string(metric_name(h.metric)) +
                     " table, not the " + canonical.name() + " " + std::string(metric_name(metric)) +
                     " table its name says",
                 ErrorCode::Corrupt);
  return {};
}

Expected<std::unique_ptr<TableReader>> open_table(const std::filesystem::path& path, const Rules& rules,
                                                  const Material& canonical, Metric metric, FileAccess access,
                                                  Env& env) {
  auto reader = TableReader::open(path, access, env);
  if (!reader) return reader;
  if (Status s = check_table_identity((*reader)->header(), rules, canonical, metric, path); !s.ok()) return s.error();
  return reader;
}

}  // namespace damka
