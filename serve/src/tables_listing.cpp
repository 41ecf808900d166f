#include "tables_listing.hpp"

#include <map>
#include <set>

#include "damka/material.hpp"
#include "damka/notation.hpp"
#include "damka/table_paths.hpp"

namespace damka {

nlohmann::json variant_listing(const Rules& rules, const std::filesystem::path& dir, const Tablebase& tb) {
  using json = nlohmann::json;
  json squares = json::array();
  for (int sq = 0; sq < kNumSquares; ++sq)
    squares.push_back({{"name", square_name(rules, sq)},
                       {"column", rules.mirrored_board ? 7 - file_of(sq) : file_of(sq)},
                       {"row", row_of(sq)}});
  // Table files: <material>.<metric> in the family's folder.
  std::map<Material, std::set<std::string>> found;
  const std::filesystem::path family = table_dir(dir, rules);
  Env& env = tb.env();
  // A folder that cannot be listed lists nothing (Server::create listed it
  // just before: materials_with_tables).
  auto names = env.list_dir(family);
  for (const std::string& name : names ? *names : std::vector<std::string>{}) {
    const std::filesystem::path file(name);
    const std::string ext = file.extension().string();
    if (ext != ".wdl" && ext != ".dtw" && ext != ".dtc") continue;
    if (auto info = env.stat(family / file); !info || !info->regular) continue;
    auto m = Material::parse(file.stem().string());
    if (!m || !m->is_valid() || !m->is_canonical() || m->name() != file.stem().string()) continue;
    found[*m].insert(ext.substr(1));
  }
  json materials = json::array();
  std::map<int, int> per_count;
  for (const auto& [m, metrics] : found) {
    materials.push_back({{"name", m.name()}, {"pieces", m.pieces()}, {"metrics", metrics}});
    ++per_count[m.pieces()];
  }
  json pieces = json::object();
  for (const auto& [n, count] : per_count) pieces[std::to_string(n)] = count;
  // A small position to open the explorer with: kings a1, c3 against a king on h8 (in the variant's names).
  Position example;
  example.kings[idx(Color::White)] = bit(0) | bit(9);
  example.kings[idx(Color::Black)] = bit(31);
  example.side_to_move = Color::White;
  return {{"name", std::string(rules.name)},
          {"display_name", std::string(rules.display_name)},
          {"family", table_family(rules)},
          {"directory", family.string()},
          {"max_pieces", tb.max_pieces()},
          {"first_to_move", color_word(rules.first_to_move)},
          {"start_fen", to_fen(rules, start_position(rules))},
          {"example_fen", to_fen(rules, example)},
          {"mirrored_board", rules.mirrored_board},
          {"numeric_notation", rules.numeric_notation},
          {"squares", squares},
          {"materials", materials},
          {"pieces", pieces}};
}

}  // namespace damka
