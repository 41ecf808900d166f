// damka_statutes.h over judge_with_tables(), on damka.h's handle.
#include "damka_statutes.h"

#include <algorithm>
#include <cstring>

#include "damka/detail/c_api.hpp"
#include "damka/statutes.hpp"

namespace {

template <std::size_t N>
void copy_text(char (&dst)[N], const std::string& src) {
  const std::size_t n = std::min(src.size(), N - 1);
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

}  // namespace

extern "C" damka_status damka_judge_statute_fen(const damka_tablebase* tb, const char* rulebook, const char* fen,
                                                int moves_played, damka_statute_verdict* out) {
  using namespace damka;
  return capi::guarded([&]() -> damka_status {
    if (tb == nullptr || rulebook == nullptr || out == nullptr)
      return capi::fail(DAMKA_E_BAD_ARGUMENT, "tb, rulebook and out must not be NULL");
    if (moves_played < 0) return capi::fail(DAMKA_E_BAD_ARGUMENT, "moves_played must be >= 0");
    Position p;
    if (damka_status s = capi::read_fen(tb, fen, p); s != DAMKA_OK) return s;
    const Rules& rules = tb->tb->rules();
    // directory() is the variant family's folder, <root>/<family>.
    auto v = judge_with_tables(rulebook, rules, p, moves_played, tb->tb->directory().parent_path());
    if (!v) {
      const std::string& m = v.message();
      const bool missing = m.find("no table") != std::string::npos || m.find("missing") != std::string::npos;
      return capi::fail(missing ? DAMKA_UNKNOWN : DAMKA_E_BAD_ARGUMENT, m);
    }
    *out = damka_statute_verdict{};
    out->covered = v->covered ? 1 : 0;
    out->winner = v->winner ? (*v->winner == Color::White ? DAMKA_WHITE : DAMKA_BLACK) : -1;
    out->wins_in_time = v->wins_in_time ? 1 : 0;
    out->moves_needed = -1;
    if (const ClauseJudgement* c = v->deciding_clause()) {
      out->moves_needed = c->moves_needed;
      out->moves_left = c->moves_left;
      out->limit = c->limit;
      copy_text(out->clause, c->id);
    }
    copy_text(out->summary, v->summary);
    return DAMKA_OK;
  });
}
