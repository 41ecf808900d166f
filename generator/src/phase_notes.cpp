// phase_notes.hpp.
#include "damka/phase_notes.hpp"

#include <string>

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
    if (m && p) notes[m->name()] = *p;
  }
  return notes;
}

Status write_phase_notes(const std::filesystem::path& path, const PhaseNotes& notes, Env& env) {
  nlohmann::json materials = nlohmann::json::object();
  for (const auto& [name, p] : notes) materials[name] = phase_profile_json(p);
  const nlohmann::json j = {{"version", 1}, {"materials", std::move(materials)}};
  return replace_file(path, j.dump(1) + "\n", 0644, env);
}

}  // namespace damka
