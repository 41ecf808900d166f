// Reading PDN 3.0 files: the games of a file, each with its tag pairs
// ([Event "..."], [FEN "W:W...:B..."], ...) and the moves of its main line as
// written.  Comments ({...}, and ';' to the end of a line), variations
// ((...), nested), numeric annotation glyphs ($3), move numbers ("12.",
// "12...") and move strength marks ("!", "?") are left out; a result
// (1-0, 0-1, 1/2-1/2, *, and the 2-0 / 1-1 / 0-2 / 0-0 of some federations)
// ends a game.  Moves stay text: reading them needs the rules and the
// position (parse_move).
//
//   for (const damka::PdnGame& g : damka::read_pdn(text))
//     if (g.error.empty()) ... g.tag("FEN") ... g.moves ...
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace damka {

struct PdnGame {
  std::size_t line = 1;  // line of the file where the game begins (1-based)
  std::vector<std::pair<std::string, std::string>> tags;  // in file order, names as written
  std::vector<std::string> moves;                         // main line, as written (marks "!?" removed)
  std::vector<std::size_t> move_lines;                    // the line of each move
  std::string result;                                     // the result token, "" when the game has none
  // Not empty when the game cannot be read (an unclosed comment, variation or
  // tag, a tag without a quoted value): what and on which line.
  std::string error;

  // The value of the first tag named `name` (case-insensitive), or "".
  // Cost: linear in the tags.  Thread-safe (const).
  std::string tag(std::string_view name) const;
  bool has_tag(std::string_view name) const;
};

// Every game of a PDN text, in order.  Never fails: a game that cannot be read
// carries `error`, and reading goes on with the next game where the text
// allows (after an unclosed comment or variation nothing is left to read).
// A text with no tags and no moves gives no games.  Cost: linear in the text.
// Thread-safe (no shared state).
std::vector<PdnGame> read_pdn(std::string_view text);

}  // namespace damka
