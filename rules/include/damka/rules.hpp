// Rules as data: one description per variant, read by the single move
// generator (movegen.hpp).  The values follow ../shared/RULES.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "damka/board.hpp"
#include "damka/position.hpp"

namespace damka {

enum class Variant : std::uint8_t { Russian, Brazilian, Filipino, Mozambique, Thai, English };

// How far a king moves and captures.
enum class KingRange : std::uint8_t {
  Flying,  // any distance along a free diagonal
  Short,   // one square; captures by a short jump over an adjacent piece
};

// Where a flying king lands after taking a piece.
enum class KingLanding : std::uint8_t {
  AnyBeyond,    // any empty square beyond the taken piece (Russian, Brazilian, ...)
  RightBehind,  // the square right behind the taken piece (Thai)
};

// When captured pieces leave the board.
enum class Removal : std::uint8_t {
  AtEnd,      // at the end of the move; until then they block (Turkish strike)
  Immediate,  // as soon as they are jumped (Thai)
};

// Which of the available captures the player may choose.
enum class CaptureChoice : std::uint8_t {
  Free,        // any capture sequence
  MostPieces,  // a sequence taking the most pieces (men and kings count alike)
  MostValue,   // the greatest value (man = 1, king = 2); equal value: free
};

// What happens when a man reaches the far row in the middle of a capture.
enum class CapturePromotion : std::uint8_t {
  ContinueAsKing,           // promotes at once and keeps capturing as a king (Russian)
  ContinueAsManElsePromote, // keeps capturing as a man if it can, else promotes and stops
  PromoteAndStop,           // promotes and the move ends (Thai, English)
};

struct Rules {
  Variant variant;
  std::string_view name;         // "russian", ...
  std::string_view display_name; // "Russian", ...
  int men_rows;                  // rows of men per side at the start (3 or 2)
  Color first_to_move;
  bool men_capture_backward;
  KingRange king_range;
  KingLanding king_landing;
  // A king that could continue capturing from some landing square must land on
  // one of those (Russian rule; implied by the majority rules elsewhere).
  bool king_must_land_to_continue;
  Removal removal;
  CaptureChoice capture_choice;
  CapturePromotion capture_promotion;
  bool mirrored_board;       // square names reflected a<->h at input/output
  bool numeric_notation;     // squares written 1..32 by default (English)
  char capture_separator;    // ':' or 'x' in move notation

  // A 64-bit fingerprint of every field that affects the game (not names).
  // Tables record it so that a table built under other rules is refused.
  // Filipino and Brazilian are the same game, so they share a fingerprint.
  std::uint64_t fingerprint() const;
};

const Rules& rules_of(Variant v);
std::span<const Variant> all_variants();
std::optional<Variant> parse_variant(std::string_view name);  // case-insensitive
std::string variant_names();  // "russian, brazilian, ..." for messages

// The standard start position of the variant.
Position start_position(const Rules& r);

}  // namespace damka
