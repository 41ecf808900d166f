// Metric sets: the names users write ("wdl,dtw,dtc") and the files they mean.
#include <algorithm>
#include <string>

#include "damka/generate.hpp"

namespace damka {

Expected<MetricSet> parse_metrics(std::string_view text) {
  MetricSet m{false, false, false};
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view name = text.substr(at, comma - at);
    if (name == "dtw") m.dtw = true;
    else if (name == "dtc") m.dtc = true;
    else if (name != "wdl")
      return Error("unknown metric '" + std::string(name) + "' in '" + std::string(text) + "' (known: wdl, dtw, dtc)");
    at = comma + 1;
  }
  return m;
}

std::string metrics_name(const MetricSet& m) {
  return std::string("wdl") + (m.dtw ? ",dtw" : "") + (m.dtc ? ",dtc" : "");
}

std::vector<Metric> file_metrics(const MetricSet& m) {
  std::vector<Metric> v{Metric::WDL};
  if (m.dtw) v.push_back(Metric::DTW);
  if (m.dtc) v.push_back(Metric::DTC);
  return v;
}

}  // namespace damka
