// The statute report as text.
#include <cstdio>
#include <sstream>
#include <string>

#include "damka/notation.hpp"
#include "damka/statutes.hpp"
#include "damka/words.hpp"
#include "report_detail.hpp"

namespace damka {

std::string reading_of_count(const Clause& c) {
  std::string s = "the count starts at 0 in a covered position and runs in moves of the side that wins while the "
                  "balance holds; it ends at a capture or a promotion";
  if (c.restarts & kExitManMove) s += " or a man move";
  s += " (the position reached is judged by the entry of " + c.number +
       " covering it, with a fresh count, else by plain play); the winner must end it, still winning, within " +
       std::to_string(c.limit) + " moves";
  return s;
}

std::string example_line(const Rules& rules, const Example& e) { return line_to_string(rules, e.position, e.line); }

std::string report_text(const StatuteReport& rep, const Rules& rules) {
  std::ostringstream o;
  char buf[512];
  o << rep.book_title << "\n";
  o << "Rulebook: data/rulebooks/" << rep.book_name << ".json (" << rep.book_source << ")\n";
  o << "Judged against " << rep.variant << " " << rep.tables << " ("
    << (rep.only ? "material " + rep.only->name() + " only"
                 : "materials up to " + std::to_string(rep.max_pieces) + " pieces considered")
    << "; "
    << (rep.largest_table ? "tables present up to " + std::to_string(rep.largest_table) + " pieces"
                          : std::string("no table present"))
    << ")\n";
  if (!rep.book_counting.empty()) o << "Counting: " << rep.book_counting << "\n";
  o << "Statute-aware values: a covered position is still won under a clause when the side that wins with perfect\n"
       "play can end the clause's count (started at 0) still winning within the limit; a win in d plies needs\n"
       "ceil(d/2) moves with the winner to move, floor(d/2) with the defender to move.  Materials are written\n"
       "with White as the side with more pieces.  Table formats: FORMAT.md; commands: README.md.\n";
  for (const ClauseReport& r : rep.clauses) {
    const Clause& c = r.clause;
    o << "\n" << c.id << "  " << c.summary << "\n";
    o << "  text        " << c.text << "\n";
    o << "  material    " << c.material_text() << "\n";
    o << "  position    " << c.condition_text() << "\n";
    o << "  limit       " << c.limit << " moves\n";
    o << "  count       " << reading_of_count(c) << "\n";
    o << "  goal        " << c.goal << "\n";
    if (!c.reading.empty()) o << "  reading     " << c.reading << "\n";
    if (!r.materials.empty()) {
      std::snprintf(buf, sizeof buf, "  %-10s %-7s %10s | %9s %9s %9s | %9s %9s %9s | %7s %7s %10s\n", "material",
                    "to move", "positions", "W wins", "draws", "B wins", "W wins", "draws", "B wins", "longest",
                    "needed", "into draws");
      o << "  " << std::string(30, ' ') << "| plain play                    | under the clause              |\n";
      o << buf;
      auto moves = [](int m) { return m < 0 ? std::string("-") : std::to_string(m); };
      auto row = [&](const std::string& name, const char* side, const SideFigures& f) {
        auto u = [](std::uint64_t x) { return static_cast<unsigned long long>(x); };
        std::snprintf(buf, sizeof buf, "  %-10s %-7s %10llu | %9llu %9llu %9llu | %9llu %9llu %9llu | %7s %7s %10llu\n",
                      name.c_str(), side, u(f.positions), u(f.white_wins), u(f.draws), u(f.black_wins),
                      u(f.sa_white_wins), u(f.sa_draws), u(f.sa_black_wins), moves(f.longest).c_str(),
                      moves(f.longest_needed).c_str(), u(f.into_draws));
        o << buf;
      };
      for (const MaterialFigures& mf : r.materials) {
        for (int s = 0; s < 2; ++s)
          if (mf.side[s].positions) row(mf.material.name(), color_title(s == 0 ? Color::White : Color::Black), mf.side[s]);
      }
      if (r.materials.size() > 1) {
        row("total", color_title(Color::White), r.total[0]);
        row("total", color_title(Color::Black), r.total[1]);
      }
      o << "  (longest: most moves of the winner among the wins that survive the clause; needed: most moves any\n"
           "  plain win needs to end the count; into draws: plain wins the clause turns into draws)\n";
    }
    o << "  verdict     " << r.verdict << "\n";
    if (r.over_limit()) {
      o << "  into draws  " << r.over_limit() << " won positions need more than " << c.limit
        << " moves inside the balance; the longest, with the line the count measures:\n";
      for (const Example& e : r.saved) {
        o << "              " << to_fen(rules, e.position) << "  " << winner_text(e.position.side_to_move, e.dtw.wdl) << ", needs "
          << e.moves_needed << " moves\n";
        o << "                " << line_to_string(rules, e.position, e.line) << "\n";
      }
    } else if (r.positions()) {
      o << "  into draws  " << (r.into_draws() ? "none inside the balance" : "none") << "\n";
    }
  }
  if (!rep.not_judgeable.empty()) {
    o << "\nClauses a table cannot judge:\n";
    for (const Clause& c : rep.not_judgeable) {
      o << "  " << c.id << "  " << c.summary << " -- " << c.reason << "\n";
      o << "      " << c.text << "\n";
    }
  }
  return o.str();
}

}  // namespace damka
