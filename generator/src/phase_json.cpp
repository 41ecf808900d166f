// phase_json.hpp.
#include "damka/phase_json.hpp"

namespace damka {
namespace {

nlohmann::json time_json(const PhaseTime& t, int threads) {
  const double room = threads * t.wall;
  return {{"wall_seconds", t.wall},
          {"busy_seconds", t.busy},
          {"busy_share", room > 0 ? t.busy / room : 0.0},
          {"kernel_seconds", t.kernel},
          {"page_faults", t.faults}};
}

}  // namespace

nlohmann::json phase_profile_json(const PhaseProfile& p) {
  nlohmann::json phases = nlohmann::json::object();
  for (int k = 0; k < kPhases; ++k) phases[std::string(phase_name(static_cast<Phase>(k)))] = time_json(p.phase[k], p.threads);
  nlohmann::json j = time_json(p.total(), p.threads);
  j["threads"] = p.threads;
  j["reads_seconds"] = p.reads;
  j["phases"] = std::move(phases);
  return j;
}

Expected<PhaseProfile> phase_profile_from_json(const nlohmann::json& j) {
  auto number = [](const nlohmann::json& o, const char* key, double& out) {
    if (!o.is_object() || !o.contains(key) || !o[key].is_number()) return false;
    out = o[key].get<double>();
    return true;
  };
  PhaseProfile p;
  double threads = 0;
  if (!number(j, "threads", threads) || threads < 1 || threads > 4096 || !number(j, "reads_seconds", p.reads) ||
      !j.contains("phases"))
    return Error("phase profile: missing threads, reads_seconds or phases");
  p.threads = static_cast<int>(threads);
  for (int k = 0; k < kPhases; ++k) {
    const std::string name(phase_name(static_cast<Phase>(k)));
    if (!j["phases"].is_object() || !j["phases"].contains(name) ||
        !number(j["phases"][name], "wall_seconds", p.phase[k].wall) ||
        !number(j["phases"][name], "busy_seconds", p.phase[k].busy))
      return Error("phase profile: phase " + name + " missing or not a number");
    // Absent from profiles written before they were measured: 0.
    (void)number(j["phases"][name], "kernel_seconds", p.phase[k].kernel);
    (void)number(j["phases"][name], "page_faults", p.phase[k].faults);
  }
  return p;
}

}  // namespace damka
