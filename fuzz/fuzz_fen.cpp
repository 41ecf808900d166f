// Fuzzes the FEN parser: any bytes (the first picks the variant) must give a
// position or an error, never a crash; a position read back from its own
// FEN is the same; every legal move's text names that move again.
#include <string_view>

#include "damka/notation.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace damka;
  if (size < 1) return 0;
  const Rules& r = fuzz::variant_of(data[0]);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto p = parse_fen(r, text);
  if (!p) {
    DAMKA_FUZZ_CHECK(!p.message().empty(), "an error without a message");
    DAMKA_FUZZ_CHECK(p.message().size() < 1024, "an error message echoing the whole input");
    return 0;
  }
  const std::string fen = to_fen(r, *p);
  auto again = parse_fen(r, fen);
  DAMKA_FUZZ_CHECK(again.ok(), fen.c_str());
  DAMKA_FUZZ_CHECK(*again == *p, fen.c_str());
  if (!p->is_valid() || p->pieces(p->side_to_move) == 0 || p->pieces(opposite(p->side_to_move)) == 0) return 0;
  MoveList moves;
  generate_moves(r, *p, moves);
  for (const Move& m : moves) {
    const std::string s = move_to_string(r, *p, m);
    auto back = parse_move(r, *p, s);
    DAMKA_FUZZ_CHECK(back.ok(), s.c_str());
    DAMKA_FUZZ_CHECK(back->same_result(m), s.c_str());
  }
  return 0;
}
