// The six variant descriptions (see ../shared/RULES.md, "Variants"), as a
// constant table: rules.cpp serves them by variant, and the move generator
// (movegen.cpp) builds a capture search fixed at compile time for each
// distinct capture shape among them.  Internal to damka_rules.
#pragma once

#include <array>

#include "damka/rules.hpp"

namespace damka::rules_detail {

inline constexpr std::array<Rules, 6> kRulesTable = {{
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

}  // namespace damka::rules_detail
