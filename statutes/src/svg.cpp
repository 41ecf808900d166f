// SVG pictures of clause positions: a plain 8x8 board with coordinates.
#include <cctype>
#include <sstream>

#include "damka/safe_file.hpp"
#include "damka/notation.hpp"
#include "damka/statutes.hpp"
#include "damka/words.hpp"

namespace damka {
namespace {

constexpr int kSquare = 44;               // square size
constexpr int kMargin = 24;               // room for coordinates
constexpr int kBoard = 8 * kSquare;       // board size
constexpr int kPanel = kBoard + 2 * kMargin;
constexpr int kLine = 17;                 // caption line height

std::string xml(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// Splits text into lines of at most `width` characters at spaces.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string word, line;
  while (in >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// One board with its caption, its top-left corner at (x, y).
void draw_board(std::ostringstream& o, const Rules& rules, const Position& p, const std::vector<std::string>& caption,
                int x, int y) {
  const int bx = x + kMargin, by = y + kMargin;
  o << "<g>\n";
  for (int row = 0; row < 8; ++row) {
    for (int file = 0; file < 8; ++file) {
      const bool dark = ((file + row) & 1) == 0;
      o << "<rect x=\"" << bx + file * kSquare << "\" y=\"" << by + (7 - row) * kSquare << "\" width=\"" << kSquare
        << "\" height=\"" << kSquare << "\" fill=\"" << (dark ? "#b58863" : "#f0d9b5") << "\"/>\n";
    }
  }
  // The main road a1-h8, faintly.
  o << "<line x1=\"" << bx + kSquare / 2 << "\" y1=\"" << by + kBoard - kSquare / 2 << "\" x2=\""
    << bx + kBoard - kSquare / 2 << "\" y2=\"" << by + kSquare / 2
    << "\" stroke=\"#6b8e23\" stroke-width=\"3\" stroke-opacity=\"0.45\"/>\n";
  o << "<rect x=\"" << bx << "\" y=\"" << by << "\" width=\"" << kBoard << "\" height=\"" << kBoard
    << "\" fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\"/>\n";
  // Coordinates as the variant's players name the squares (mirrored boards
  // reflect the files).
  for (int i = 0; i < 8; ++i) {
    const int file_sq = square_at(i, (i & 1));  // a playing square on that file
    const std::string file_name = square_name_algebraic(rules, file_sq).substr(0, 1);
    o << "<text x=\"" << bx + i * kSquare + kSquare / 2 << "\" y=\"" << by + kBoard + 17
      << "\" font-family=\"sans-serif\" font-size=\"13\" text-anchor=\"middle\" fill=\"#333\">" << xml(file_name)
      << "</text>\n";
    o << "<text x=\"" << bx - 12 << "\" y=\"" << by + (7 - i) * kSquare + kSquare / 2 + 5
      << "\" font-family=\"sans-serif\" font-size=\"13\" text-anchor=\"middle\" fill=\"#333\">" << i + 1
      << "</text>\n";
  }
  for (int s = 0; s < kNumSquares; ++s) {
    Color c;
    bool king;
    if (p.men[0] & bit(s)) c = Color::White, king = false;
    else if (p.kings[0] & bit(s)) c = Color::White, king = true;
    else if (p.men[1] & bit(s)) c = Color::Black, king = false;
    else if (p.kings[1] & bit(s)) c = Color::Black, king = true;
    else continue;
    const int cx = bx + file_of(s) * kSquare + kSquare / 2;
    const int cy = by + (7 - row_of(s)) * kSquare + kSquare / 2;
    const char* fill = c == Color::White ? "#fbfbf6" : "#1e1e1e";
    const char* line = c == Color::White ? "#222" : "#000";
    const char* mark = c == Color::White ? "#b8860b" : "#e0b040";
    o << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"" << kSquare * 0.4 << "\" fill=\"" << fill
      << "\" stroke=\"" << line << "\" stroke-width=\"1.5\"/>\n";
    if (king) {
      o << "<circle cx=\"" << cx << "\" cy=\"" << cy << "\" r=\"" << kSquare * 0.27 << "\" fill=\"none\" stroke=\""
        << mark << "\" stroke-width=\"2\"/>\n";
      o << "<text x=\"" << cx << "\" y=\"" << cy + 5 << "\" font-family=\"sans-serif\" font-size=\"14\" "
        << "font-weight=\"bold\" text-anchor=\"middle\" fill=\"" << mark << "\">K</text>\n";
    }
  }
  int ty = by + kBoard + 40;
  for (const std::string& l : caption) {
    o << "<text x=\"" << bx << "\" y=\"" << ty << "\" font-family=\"sans-serif\" font-size=\"13\" fill=\"#111\">"
      << xml(l) << "</text>\n";
    ty += kLine;
  }
  o << "</g>\n";
}

std::vector<std::string> caption_lines(const std::vector<std::string>& caption) {
  std::vector<std::string> out;
  for (const std::string& c : caption)
    for (const std::string& l : wrap(c, 52)) out.push_back(l);
  return out;
}

// Plain words: who is to move, who wins with and without the clause, and how
// many moves the winner needs against the limit.
std::vector<std::string> example_caption(const Rules& rules, const Example& e, const std::string& head,
                                         const Clause& c) {
  std::vector<std::string> cap{head, "Position: " + to_fen(rules, e.position)};
  std::string who = std::string(color_title(e.position.side_to_move)) + " to move. ";
  if (e.dtw.wdl == Wdl::Draw) {
    who += "A draw with best play, with or without the clause.";
  } else {
    who += winner_text(e.position.side_to_move, e.dtw.wdl) + " with best play";
    if (e.moves_needed >= 0)
      who += " and needs " + std::to_string(e.moves_needed) + " " + (e.moves_needed == 1 ? "move" : "moves") +
             " to finish what the clause asks, against a limit of " + std::to_string(c.limit) + ": ";
    else
      who += ", but every way to win leaves the balance into a position the clause draws: ";
    who += e.statute.wdl == Wdl::Draw ? "the clause makes it a draw." : "still a win under the clause.";
  }
  cap.push_back(who);
  if (!e.line.empty()) cap.push_back("Line: " + example_line(rules, e));
  return cap;
}

}  // namespace

std::string board_svg(const Rules& rules, const Position& p, const std::vector<std::string>& caption) {
  const auto lines = caption_lines(caption);
  const int height = kPanel + 24 + static_cast<int>(lines.size()) * kLine;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kPanel + 16 << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << kPanel + 16 << " " << height << "\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  draw_board(o, rules, p, lines, 0, 0);
  o << "</svg>\n";
  return o.str();
}

std::string clause_svg(const StatuteReport& rep, const ClauseReport& r, const Rules& rules) {
  const Clause& c = r.clause;
  std::vector<std::vector<std::string>> caps;
  std::vector<Position> boards;
  if (r.longest) {
    boards.push_back(r.longest->position);
    caps.push_back(caption_lines(example_caption(rules, *r.longest, "Longest win that survives the clause", c)));
  }
  if (r.example && !(r.longest && r.example->position == r.longest->position)) {
    boards.push_back(r.example->position);
    caps.push_back(caption_lines(example_caption(rules, *r.example, "Example: " + r.example_caption, c)));
  }
  const int panels = std::max<int>(2, static_cast<int>(boards.size()));
  const int width = panels * (kPanel + 16) + 16;
  std::vector<std::string> title =
      wrap(std::string(rules.display_name) + ", rulebook " + rep.book_name + ", clause " + c.id + ": " + c.summary,
           static_cast<std::size_t>((width - 32) / 10));
  std::vector<std::string> foot = wrap("Verdict: " + r.verdict, static_cast<std::size_t>((width - 32) / 7.5));
  const std::vector<std::string> legend = {
      "How to read it: White pieces are light, Black pieces dark; a ring with K marks a king.",
      "The green line is the main road a1-h8.",
      "A move is one move of each side; the clause counts the moves of the side that wins, from the moment the "
      "balance of forces arose, until a capture or a promotion" +
          std::string(c.restarts & kExitManMove ? " or a move of a man" : "") + " changes it.",
      "Under the clause a won position stays won only if the winner gets there within " + std::to_string(c.limit) +
          " moves."};
  for (const std::string& l : legend)
    for (const std::string& w : wrap(l, static_cast<std::size_t>((width - 32) / 7.5))) foot.push_back(w);
  if (boards.empty()) foot.insert(foot.begin(), "No position of this clause is in the tables.");
  std::size_t cap_lines = 0;
  for (const auto& cp : caps) cap_lines = std::max(cap_lines, cp.size());
  const int top = 16 + static_cast<int>(title.size()) * 20;
  const int board_h = boards.empty() ? 0 : kPanel + 24 + static_cast<int>(cap_lines) * kLine;
  const int height = top + board_h + 16 + static_cast<int>(foot.size()) * kLine + 8;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
    << width << " " << height << "\">\n";
  o << "<title>" << xml(std::string(rules.display_name) + " - " + rep.book_name + " " + c.id + ": " + c.summary)
    << "</title>\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  int y = 24;
  for (const std::string& l : title) {
    o << "<text x=\"16\" y=\"" << y << "\" font-family=\"sans-serif\" font-size=\"16\" font-weight=\"bold\" "
      << "fill=\"#111\">" << xml(l) << "</text>\n";
    y += 20;
  }
  for (std::size_t i = 0; i < boards.size(); ++i)
    draw_board(o, rules, boards[i], caps[i], 8 + static_cast<int>(i) * (kPanel + 16), top);
  y = top + board_h + 16;
  for (const std::string& l : foot) {
    o << "<text x=\"16\" y=\"" << y << "\" font-family=\"sans-serif\" font-size=\"13\" fill=\"#333\">" << xml(l)
      << "</text>\n";
    y += kLine;
  }
  o << "</svg>\n";
  return o.str();
}

Expected<std::vector<std::filesystem::path>> write_svgs(const StatuteReport& rep, const Rules& rules,
                                                        const std::filesystem::path& dir, Env& env) {
  const std::filesystem::path sub = dir / std::string(rules.name) / rep.book_name;
  if (Status s = env.make_dirs(sub); !s.ok()) return s.error();
  std::vector<std::filesystem::path> out;
  for (const ClauseReport& r : rep.clauses) {
    std::string id = r.clause.id;
    for (char& ch : id)
      if (ch == '/' || ch == '\\' || ch == ' ') ch = '_';
    const std::filesystem::path p = sub / (id + ".svg");
    // Written to a fresh temporary file, then renamed (safe_file.hpp): an
    // interrupted run leaves no half picture, and a link planted at any name
    // is never written through.
    if (Status s = replace_file(p, clause_svg(rep, r, rules), 0644, env); !s.ok()) return s.error();
    out.push_back(p);
  }
  return out;
}

}  // namespace damka
