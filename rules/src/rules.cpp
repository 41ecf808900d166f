// The six variant descriptions (see ../shared/RULES.md, "Variants").
#include "damka/rules.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace damka {
namespace {

constexpr std::array<Rules, 6> kRules = {{
    {Variant::Russian, "russian", "Russian", 3, Color::White, true, KingRange::Flying,
     KingLanding::AnyBeyond, true, Removal::AtEnd, CaptureChoice::Free,
     CapturePromotion::ContinueAsKing, false, false, ':'},
    {Variant::Brazilian, "brazilian", "Brazilian", 3, Color::White, true, KingRange::Flying,
     KingLanding::AnyBeyond, true, Removal::AtEnd, CaptureChoice::MostPieces,
     CapturePromotion::ContinueAsManElsePromote, false, false, 'x'},
    {Variant::Filipino, "filipino", "Filipino", 3, Color::White, true, KingRange::Flying,
     KingLanding::AnyBeyond, true, Removal::AtEnd, CaptureChoice::MostPieces,
     CapturePromotion::ContinueAsManElsePromote, true, false, 'x'},
    {Variant::Mozambique, "mozambique", "Mozambique", 3, Color::White, true, KingRange::Flying,
     KingLanding::AnyBeyond, true, Removal::AtEnd, CaptureChoice::MostValue,
     CapturePromotion::ContinueAsManElsePromote, true, false, 'x'},
    {Variant::Thai, "thai", "Thai", 2, Color::Black, false, KingRange::Flying,
     KingLanding::RightBehind, false, Removal::Immediate, CaptureChoice::Free,
     CapturePromotion::PromoteAndStop, false, false, 'x'},
    {Variant::English, "english", "English", 3, Color::Black, false, KingRange::Short,
     KingLanding::RightBehind, false, Removal::AtEnd, CaptureChoice::Free,
     CapturePromotion::PromoteAndStop, false, true, 'x'},
}};

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

const Rules& rules_of(Variant v) { return kRules[static_cast<std::size_t>(v)]; }

std::span<const Variant> all_variants() { return kVariants; }

std::optional<Variant> parse_variant(std::string_view name) {
  for (const Rules& r : kRules) {
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
  for (const Rules& r : kRules) {
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
