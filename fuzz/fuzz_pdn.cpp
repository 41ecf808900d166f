// Fuzzes the PDN file reader (pdn.hpp) and reading its games' moves: input is
// a variant byte and a PDN text.  Every game read has as many move lines as
// moves and no empty move; a game without a reading error is replayed from
// its FEN tag (or the start) with parse_move, each accepted move legal.
// Anything else is an error, never a crash or a hang.
#include <string_view>

#include "damka/notation.hpp"
#include "damka/pdn.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace damka;
  if (size < 1) return 0;
  const Rules& r = fuzz::variant_of(data[0]);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  for (const PdnGame& g : read_pdn(text)) {
    DAMKA_FUZZ_CHECK(g.moves.size() == g.move_lines.size(), "a move without its line");
    DAMKA_FUZZ_CHECK(g.line >= 1, "a game on line 0");
    if (!g.error.empty()) continue;
    Position p = start_position(r);
    if (g.has_tag("FEN")) {
      auto f = parse_fen(r, g.tag("FEN"));
      if (!f) continue;
      p = *f;
    }
    if (!p.is_valid()) continue;
    for (const std::string& m : g.moves) {
      DAMKA_FUZZ_CHECK(!m.empty(), "an empty move");
      auto mv = parse_move(r, p, m);
      if (!mv) break;
      MoveList legal;
      generate_moves(r, p, legal);
      bool found = false;
      for (const Move& x : legal) found = found || x.same_result(*mv);
      DAMKA_FUZZ_CHECK(found, "an accepted move that is not legal");
      p = apply(p, *mv);
    }
  }
  return 0;
}
