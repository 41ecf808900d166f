// Fuzzes the PDN game reader (parse_game: tags, move numbers, comments, a
// result, or a plain move list): any bytes (the first picks the variant)
// must give a game or an error with a short message, never a crash or a
// hang; a game read is legal move by move from its start, and its final
// position is valid; counting it under the Russian rulebook never fails.
#include <string_view>

#include "damka/statutes.hpp"
#include "fuzz_common.hpp"

namespace {

const damka::Rulebook* russian_book() {
  static const auto book = damka::load_rulebook("russian-federation", {DAMKA_SOURCE_RULEBOOKS_DIR});
  return book ? &*book : nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace damka;
  if (size < 1 || size > (std::size_t{1} << 16)) return 0;
  const Rules& r = fuzz::variant_of(data[0]);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto g = parse_game(r, text);
  if (!g) {
    DAMKA_FUZZ_CHECK(!g.message().empty(), "an error without a message");
    DAMKA_FUZZ_CHECK(g.message().size() < 2048, "an error message echoing the whole input");
    return 0;
  }
  if (!g->start.is_valid()) {
    DAMKA_FUZZ_CHECK(g->moves.empty(), "moves played from an invalid position");
    return 0;
  }
  // Every move legal where it is played.
  Position p = g->start;
  for (const Move& m : g->moves) {
    MoveList legal;
    generate_moves(r, p, legal);
    bool found = false;
    for (const Move& l : legal) found = found || l.same_result(m);
    DAMKA_FUZZ_CHECK(found, "a move of the game is not legal where it is played");
    p = apply(p, m);
  }
  DAMKA_FUZZ_CHECK(p == g->final_position(), "final_position() is not where the moves lead");
  DAMKA_FUZZ_CHECK(p.is_valid(), "the game ends in an invalid position");
  if (const Rulebook* book = russian_book(); book != nullptr && book->governs(r))
    for (const auto& [clause, moves] : count_game(*book, *g)) DAMKA_FUZZ_CHECK(moves >= 0, clause.c_str());
  return 0;
}
