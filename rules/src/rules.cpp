// The six variant descriptions (see ../shared/RULES.md, "Variants"), served
// from the table in rules_table.hpp.
#include "damka/rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "rules_table.hpp"

namespace damka {
namespace {

using rules_detail::kRulesTable;

constexpr std::array<Variant, 6> kVariants = {Variant::Russian, Variant::Brazilian, Variant::Filipino,
                                              Variant::Mozambique, Variant::Thai, Variant::English};

// FNV-1a over the bytes of the fields that change the game.
struct Fnv {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  }
};

}  // namespace

std::uint64_t Rules::fingerprint() const {
  // Board orientation and notation do not change the game, so Filipino and
  // Brazilian share a fingerprint (and tables).
  Fnv f;
  f.add(1);  // fingerprint scheme version
  f.add(static_cast<std::uint64_t>(men_rows));
  f.add(static_cast<std::uint64_t>(men_capture_backward));
  f.add(static_cast<std::uint64_t>(king_range));
  f.add(static_cast<std::uint64_t>(king_landing));
  f.add(static_cast<std::uint64_t>(king_must_land_to_continue));
  f.add(static_cast<std::uint64_t>(removal));
  f.add(static_cast<std::uint64_t>(capture_choice));
  f.add(static_cast<std::uint64_t>(capture_promotion));
  return f.h;
}

const Rules& rules_of(Variant v) { return kRulesTable[static_cast<std::size_t>(v)]; }

std::span<const Variant> all_variants() { return kVariants; }

std::optional<Variant> parse_variant(std::string_view name) {
  for (const Rules& r : kRulesTable) {
    if (name.size() == r.name.size() &&
        std::equal(name.begin(), name.end(), r.name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == b;
        }))
      return r.variant;
  }
  return std::nullopt;
}

std::string variant_names() {
  std::string s;
  for (const Rules& r : kRulesTable) {
    if (!s.empty()) s += ", ";
    s += r.name;
  }
  return s;
}

Position start_position(const Rules& r) {
  Position p;
  for (int row = 0; row < r.men_rows; ++row) {
    p.men[idx(Color::White)] |= row_mask(row);
    p.men[idx(Color::Black)] |= row_mask(7 - row);
  }
  p.side_to_move = r.first_to_move;
  return p;
}

}  // namespace damka
