// Fuzzes the move parser: input "FEN\nmove text" (the first byte picks the
// variant).  A move the parser accepts is legal, and its own text names it
// again; anything else is an error with a short message, never a crash.
#include <string_view>

#include "damka/notation.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace damka;
  if (size < 1) return 0;
  const Rules& r = fuzz::variant_of(data[0]);
  const std::string_view all(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t nl = all.find('\n');
  if (nl == std::string_view::npos) return 0;
  auto p = parse_fen(r, all.substr(0, nl));
  if (!p || !p->is_valid() || p->pieces(p->side_to_move) == 0 || p->pieces(opposite(p->side_to_move)) == 0)
    return 0;
  auto m = parse_move(r, *p, all.substr(nl + 1));
  if (!m) {
    DAMKA_FUZZ_CHECK(!m.message().empty(), "an error without a message");
    return 0;
  }
  MoveList moves;
  generate_moves(r, *p, moves);
  bool legal = false;
  for (const Move& x : moves) legal = legal || x.same_result(*m);
  DAMKA_FUZZ_CHECK(legal, "an accepted move that is not legal");
  const std::string s = move_to_string(r, *p, *m);
  auto back = parse_move(r, *p, s);
  DAMKA_FUZZ_CHECK(back.ok() && back->same_result(*m), s.c_str());
  return 0;
}
