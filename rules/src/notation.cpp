// FEN, square and move notation (see notation.hpp).
#include "damka/notation.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

namespace damka {
namespace {

std::string quoted(std::string_view s) { return quote_for_message(s); }

// Text that cannot be read (a FEN, a square, a move) is the caller's input.
Error BadText(std::string message) { return Error(std::move(message), ErrorCode::InvalidArgument); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// English numbering: 1 = b8 ... 4 = h8, 5 = a7, ..., 29 = a1, 32 = g1.
int numeric_to_square(int n) { return (7 - (n - 1) / 4) * 4 + (n - 1) % 4; }
int square_to_numeric(int s) { return (7 - row_of(s)) * 4 + (s & 3) + 1; }

// The file as the variant's players name it (mirrored boards reflect a<->h).
int external_file(const Rules& r, int internal) { return r.mirrored_board ? 7 - internal : internal; }

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string quote_for_message(std::string_view s, std::size_t max_bytes) {
  std::string out = "'";
  const std::size_t n = std::min(s.size(), max_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '\'';
  if (s.size() > n) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

std::string square_name_algebraic(const Rules& r, int sq) {
  std::string s;
  s += static_cast<char>('a' + external_file(r, file_of(sq)));
  s += static_cast<char>('1' + row_of(sq));
  return s;
}

std::string square_name(const Rules& r, int sq) {
  return r.numeric_notation ? std::to_string(square_to_numeric(sq)) : square_name_algebraic(r, sq);
}

Expected<int> parse_square(const Rules& r, std::string_view text) {
  text = trim(text);
  if (all_digits(text)) {
    if (!r.numeric_notation)
      return BadText("square " + quoted(text) + ": numeric squares are used only in English draughts; write e.g. c3");
    int n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.size() > 2 || n < 1 || n > 32) return BadText("square " + quoted(text) + ": numbers run from 1 to 32");
    return numeric_to_square(n);
  }
  if (text.size() != 2) return BadText("square " + quoted(text) + ": expected a file a-h and a rank 1-8, e.g. c3");
  const char f = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  const char k = text[1];
  if (f < 'a' || f > 'h') return BadText("square " + quoted(text) + ": file must be a-h");
  if (k < '1' || k > '8') return BadText("square " + quoted(text) + ": rank must be 1-8");
  const int sq = square_at(external_file(r, f - 'a'), k - '1');
  if (sq < 0)
    return BadText("square " + quoted(text) + " is not a playing square" +
                 (r.mirrored_board ? " (this variant's board is mirrored: b1, d1, ... are dark)" : ""));
  return sq;
}

Expected<Position> parse_fen(const Rules& r, std::string_view fen_text) {
  const std::string_view fen = trim(fen_text);
  auto fail = [&](std::size_t col, const std::string& what) {
    return BadText("FEN " + quoted(fen) + ", column " + std::to_string(col + 1) + ": " + what);
  };
  if (fen.empty()) return BadText("FEN is empty; expected e.g. W:Wa1,Kc3:Bb8");
  Position p;
  const char side = static_cast<char>(std::toupper(static_cast<unsigned char>(fen[0])));
  if (side != 'W' && side != 'B') return fail(0, "expected the side to move, W or B");
  p.side_to_move = side == 'W' ? Color::White : Color::Black;
  std::size_t pos = 1;
  bool seen[2] = {false, false};
  Bitboard used = 0;
  while (pos < fen.size()) {
    if (fen[pos] == '.' && pos + 1 == fen.size()) break;  // optional final full stop
    if (fen[pos] != ':') return fail(pos, "expected ':' before a colour's pieces");
    ++pos;
    if (pos >= fen.size()) return fail(pos, "expected W or B after ':'");
    const char colour = static_cast<char>(std::toupper(static_cast<unsigned char>(fen[pos])));
    if (colour != 'W' && colour != 'B') return fail(pos, "expected W or B to start a colour's pieces");
    const Color c = colour == 'W' ? Color::White : Color::Black;
    if (seen[idx(c)]) return fail(pos, std::string("the pieces of ") + color_title(c) + " are listed twice");
    seen[idx(c)] = true;
    ++pos;
    // Comma-separated items up to the next ':' (or the end / a final '.').
    std::size_t end = fen.find(':', pos);
    if (end == std::string_view::npos) end = fen.size();
    std::string_view list = fen.substr(pos, end - pos);
    if (!list.empty() && list.back() == '.' && end == fen.size()) list.remove_suffix(1);
    while (!list.empty()) {
      const std::size_t comma = list.find(',');
      std::string_view item = list.substr(0, comma);
      const std::string_view raw = item;
      const std::size_t col = static_cast<std::size_t>(raw.data() - fen.data());
      item = trim(item);
      if (item.empty()) return fail(col, "empty square in the list");
      bool king = false;
      if (std::toupper(static_cast<unsigned char>(item[0])) == 'K') {
        king = true;
        item.remove_prefix(1);
      }
      std::vector<int> squares;
      const std::size_t dash = item.find('-');
      if (dash != std::string_view::npos) {
        const std::string_view a = item.substr(0, dash), b = item.substr(dash + 1);
        if (!r.numeric_notation || !all_digits(a) || !all_digits(b))
          return fail(col, "a range " + quoted(raw) + " needs numeric squares (English notation)");
        int lo = 0, hi = 0;
        std::from_chars(a.data(), a.data() + a.size(), lo);
        std::from_chars(b.data(), b.data() + b.size(), hi);
        if (lo < 1 || hi > 32 || lo > hi) return fail(col, "bad range " + quoted(raw));
        for (int n = lo; n <= hi; ++n) squares.push_back(numeric_to_square(n));
      } else {
        auto sq = parse_square(r, item);
        if (!sq) return fail(col, sq.message());
        squares.push_back(*sq);
      }
      for (int sq : squares) {
        if (used & bit(sq)) return fail(col, "square " + square_name(r, sq) + " is listed twice");
        used |= bit(sq);
        if (!king && (promotion_row(c) & bit(sq)))
          return fail(col, std::string("a ") + color_word(c) + " man cannot stand on " +
                               square_name(r, sq) + ", its promotion row (write K for a king)");
        (king ? p.kings : p.men)[idx(c)] |= bit(sq);
      }
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
      if (trim(list).empty()) return fail(col + raw.size() + 1, "empty square in the list");
    }
    pos = end;
  }
  for (Color c : {Color::White, Color::Black})
    if (popcount(p.pieces(c)) > 12)
      return BadText("FEN " + quoted(fen) + ": " + color_title(c) + " has more than 12 pieces");
  return p;
}

std::string to_fen(const Rules& r, const Position& p) {
  std::string s(1, p.side_to_move == Color::White ? 'W' : 'B');
  for (Color c : {Color::White, Color::Black}) {
    s += c == Color::White ? ":W" : ":B";
    std::vector<std::pair<int, int>> items;  // (sort key, square)
    for (Bitboard b = p.pieces(c); b; b &= b - 1) {
      const int sq = lsb(b);
      // Numeric squares in number order; algebraic ones by file, then rank.
      items.emplace_back(r.numeric_notation ? square_to_numeric(sq)
                                            : external_file(r, file_of(sq)) * 8 + row_of(sq), sq);
    }
    std::sort(items.begin(), items.end());
    bool first = true;
    for (auto [key, sq] : items) {
      if (!first) s += ',';
      first = false;
      if (p.kings[idx(c)] & bit(sq)) s += 'K';
      s += square_name(r, sq);
    }
  }
  return s;
}

std::string move_to_string(const Rules& r, const Position& p, const Move& m) {
  MoveList legal;
  generate_moves(r, p, legal, MoveMode::Merged);
  const char sep = m.is_capture() ? r.capture_separator : '-';
  bool ambiguous = false;
  for (const Move& o : legal)
    ambiguous |= o.from == m.from && o.to == m.to && !o.same_result(m);
  std::string s = square_name(r, m.from);
  if (ambiguous) {
    for (int i = 0; i < m.num_steps; ++i) s += sep + square_name(r, m.path[i]);
  } else {
    s += sep + square_name(r, m.to);
  }
  return s;
}

Expected<Move> parse_move(const Rules& r, const Position& p, std::string_view text_in) {
  const std::string_view text = trim(text_in);
  std::vector<int> squares;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '-' || text[i] == ':' || text[i] == 'x' || text[i] == 'X') {
      auto sq = parse_square(r, text.substr(start, i - start));
      if (!sq) return BadText("move " + quoted(text) + ", column " + std::to_string(start + 1) + ": " + sq.message());
      squares.push_back(*sq);
      start = i + 1;
    }
  }
  if (squares.size() < 2) return BadText("move " + quoted(text) + ": expected at least two squares, e.g. c3-d4");
  MoveList legal;
  generate_moves(r, p, legal, MoveMode::AllPaths);
  std::vector<Move> found, exact;  // exact: the text is the move's whole path
  const auto add = [](std::vector<Move>& to, const Move& m) {
    if (std::none_of(to.begin(), to.end(), [&](const Move& f) { return f.same_result(m); })) to.push_back(m);
  };
  for (const Move& m : legal) {
    if (m.from != squares.front() || m.to != squares.back()) continue;
    // Every turning square given must lie on the path, in order.
    std::size_t k = 1;
    for (int i = 0; i < m.num_steps && k + 1 < squares.size(); ++i)
      if (m.path[i] == squares[k]) ++k;
    if (k + 1 < squares.size()) continue;
    add(found, m);
    if (static_cast<std::size_t>(m.num_steps) + 1 == squares.size() &&
        std::equal(squares.begin() + 1, squares.end(), m.path.begin()))
      add(exact, m);
  }
  // "e3:g1" names the single jump e3-g1 even when a longer capture from e3
  // also ends on g1 (move_to_string writes it so).
  if (found.size() > 1 && exact.size() == 1) return exact.front();
  if (found.empty()) {
    std::string list;
    MoveList merged;
    generate_moves(r, p, merged, MoveMode::Merged);
    for (const Move& m : merged) list += (list.empty() ? "" : " ") + move_to_string(r, p, m);
    return BadText("move " + quoted(text) + " is not legal here" + (list.empty() ? " (no legal moves)" : "; legal: " + list));
  }
  if (found.size() > 1) {
    std::string list;
    for (const Move& m : found) {
      std::string full = square_name(r, m.from);
      for (int i = 0; i < m.num_steps; ++i) full += r.capture_separator + square_name(r, m.path[i]);
      list += (list.empty() ? "" : ", ") + full;
    }
    return BadText("move " + quoted(text) + " is ambiguous: write the turning squares (" + list + ")");
  }
  return found.front();
}

std::string board_diagram(const Rules& r, const Position& p) {
  std::string s;
  for (int row = 7; row >= 0; --row) {
    s += static_cast<char>('1' + row);
    s += ' ';
    for (int fe = 0; fe < 8; ++fe) {
      const int sq = square_at(r.mirrored_board ? 7 - fe : fe, row);
      char c = ' ';
      if (sq >= 0) {
        c = '.';
        if (p.men[0] & bit(sq)) c = 'w';
        if (p.kings[0] & bit(sq)) c = 'W';
        if (p.men[1] & bit(sq)) c = 'b';
        if (p.kings[1] & bit(sq)) c = 'B';
      }
      s += ' ';
      s += c;
    }
    s += '\n';
  }
  s += "   a b c d e f g h\n";
  s += std::string(color_title(p.side_to_move)) + " to move (w/b men, W/B kings)\n";
  return s;
}

std::vector<std::string> line_moves(const Rules& r, Position p, const std::vector<Move>& line) {
  std::vector<std::string> out;
  out.reserve(line.size());
  for (const Move& m : line) {
    out.push_back(move_to_string(r, p, m));
    p = apply(p, m);
  }
  return out;
}

std::string line_to_string(const Rules& r, Position p, const std::vector<Move>& line) {
  std::string s;
  int number = 1;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const bool first_side = p.side_to_move == r.first_to_move;
    if (first_side) s += (s.empty() ? "" : " ") + std::to_string(number) + ". ";
    else if (i == 0) s += std::to_string(number) + "... ";
    else s += " ";
    s += move_to_string(r, p, line[i]);
    p = apply(p, line[i]);
    if (!first_side) ++number;
  }
  return s;
}

}  // namespace damka
