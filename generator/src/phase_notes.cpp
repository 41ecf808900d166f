// phase_notes.hpp.
#include "damka/phase_notes.hpp"

#include <string>

#include "damka/generate.hpp"
#include "damka/phase_json.hpp"
#include "damka/safe_file.hpp"
#include "damka/table_paths.hpp"

namespace damka {
namespace {
constexpr std::uint64_t kMostBytes = std::uint64_t{16} << 20;  // far more than every material of 8 pieces
}

std::filesystem::path phase_notes_path(const Rules& rules, const std::filesystem::path& out) {
  return out / (".damka-phases-" + table_family(rules) + ".json");
}

PhaseNotes read_phase_notes(const std::filesystem::path& path, Env& env) {
  PhaseNotes notes;
  auto file = env.open_read(path);
  if (!file) return notes;
  auto info = (*file)->info();
  if (!info || !info->regular || info->size > kMostBytes) return notes;
  std::string text(static_cast<std::size_t>(info->size), '\0');
  if (!(*file)->read(0, text.size(), text.data()).ok()) return notes;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("materials") || !j["materials"].is_object()) return notes;
  for (const auto& [name, entry] : j["materials"].items()) {
    auto m = Material::parse(name);
    auto p = phase_profile_from_json(entry);
    if (!m || !p) continue;
    PhaseNote note{*p, MetricSet{}};
    if (entry.contains("metrics")) {  // absent in notes written before metrics were kept
      const auto* text = entry["metrics"].get_ptr<const std::string*>();
      auto metrics = text != nullptr ? parse_metrics(*text) : Expected<MetricSet>(Error("not text"));
      if (!metrics) continue;
      note.metrics = *metrics;
    }
    notes[m->name()] = note;
  }
  return notes;
}

Status write_phase_notes(const std::filesystem::path& path, const PhaseNotes& notes, Env& env) {
  nlohmann::json materials = nlohmann::json::object();
  for (const auto& [name, note] : notes) {
    nlohmann::json entry = phase_profile_json(note.profile);
    entry["metrics"] = metrics_name(note.metrics);
    materials[name] = std::move(entry);
  }
  const nlohmann::json j = {{"version", 1}, {"materials", std::move(materials)}};
  return replace_file(path, j.dump(1) + "\n", 0644, env);
}

}  // namespace damka
