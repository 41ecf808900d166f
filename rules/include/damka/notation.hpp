// FEN (PDN 3.0) and move notation.  Squares are read and written as the
// variant's players name them: algebraic for every variant (reflected a<->h on
// the mirrored boards of Filipino and Mozambique), and numeric 1..32 for
// English (1 = b8, 4 = h8, 5 = a7, 29 = a1, 32 = g1).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "damka/expected.hpp"
#include "damka/movegen.hpp"

namespace damka {

// User input quoted for an error message: in single quotes, control
// characters written as \xNN, at most max_bytes of it (a longer text is cut
// and its length given), so a huge or binary input gives a short, printable
// message.
std::string quote_for_message(std::string_view text, std::size_t max_bytes = 64);

// Square names.
std::string square_name(const Rules& r, int sq);                 // variant's default style
std::string square_name_algebraic(const Rules& r, int sq);       // "c3" (mirrored where the board is)
Expected<int> parse_square(const Rules& r, std::string_view text);  // algebraic, or numeric for English

// FEN: "W:Wa1,Kc3,e5:Bb8,Kh2" (numeric squares and ranges "21-32" for English).
Expected<Position> parse_fen(const Rules& r, std::string_view fen);
std::string to_fen(const Rules& r, const Position& p);

// Moves: "c3-d4", "c3:e5" / "c3xe5", with turning squares "d2:h6:f8:c5:a7".
// The shortest text that tells the move apart from every other legal move.
std::string move_to_string(const Rules& r, const Position& p, const Move& m);
// A line of moves from p numbered by full moves: "1. c3-d4 h8-g7 2. ..." or,
// when the second side moves first, "1... h8-g7 2. ...".  Each move must be
// legal in the position the line has reached.
std::string line_to_string(const Rules& r, Position p, const std::vector<Move>& line);
// The same line as one move text per ply, unnumbered ({"c3-d4", "h8-g7"}):
// as the JSON of a principal variation and Python's pv() give it.
std::vector<std::string> line_moves(const Rules& r, Position p, const std::vector<Move>& line);
// Finds the legal move the text names; rejects illegal or ambiguous text.
Expected<Move> parse_move(const Rules& r, const Position& p, std::string_view text);

// A text picture of the board from White's side (as the variant's players
// see it, with their square names on the edges).
std::string board_diagram(const Rules& r, const Position& p);

}  // namespace damka
