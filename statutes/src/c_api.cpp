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

damka_status fill(const damka::Expected<damka::StatuteVerdict>& v, damka_statute_verdict* out) {
  using namespace damka;
  if (!v) return capi::fail(v.error());  // by its code (capi::status_of): a missing table is DAMKA_UNKNOWN
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
}

damka_status read_counts(const damka_statute_count* counts, size_t n, damka::StatuteCounters& out) {
  if (n > 0 && counts == nullptr) return damka::capi::fail(DAMKA_E_BAD_ARGUMENT, "counts is NULL but n_counts > 0");
  if (n > 4096) return damka::capi::fail(DAMKA_E_BAD_ARGUMENT, "more than 4096 counts");
  for (size_t i = 0; i < n; ++i) {
    if (counts[i].clause == nullptr) return damka::capi::fail(DAMKA_E_BAD_ARGUMENT, "a count's clause is NULL");
    const std::string name(counts[i].clause, strnlen(counts[i].clause, 64));
    if (out.count(name)) return damka::capi::fail(DAMKA_E_BAD_ARGUMENT, "clause " + name + " is given twice");
    out[name] = counts[i].moves_played;
  }
  return DAMKA_OK;
}

damka_status judge_counts(const damka_tablebase* tb, const char* rulebook, const damka::Position& p,
                          const damka_statute_count* counts, size_t n, damka_statute_verdict* out) {
  using namespace damka;
  StatuteCounters c;
  if (damka_status s = read_counts(counts, n, c); s != DAMKA_OK) return s;
  const Rules& rules = tb->tb->rules();
  return fill(judge_with_tables(rulebook, rules, p, c, tb->tb->directory().parent_path()), out);
}

}  // namespace

extern "C" damka_status damka_judge_statute_counts_fen(const damka_tablebase* tb, const char* rulebook,
                                                       const char* fen, const damka_statute_count* counts,
                                                       size_t n_counts, damka_statute_verdict* out) {
  using namespace damka;
  return capi::guarded([&]() -> damka_status {
    if (tb == nullptr || rulebook == nullptr || out == nullptr)
      return capi::fail(DAMKA_E_BAD_ARGUMENT, "tb, rulebook and out must not be NULL");
    Position p;
    if (damka_status s = capi::read_fen(tb, fen, p); s != DAMKA_OK) return s;
    return judge_counts(tb, rulebook, p, counts, n_counts, out);
  });
}

extern "C" damka_status damka_judge_statute_counts(const damka_tablebase* tb, const char* rulebook,
                                                   uint32_t white_men, uint32_t white_kings, uint32_t black_men,
                                                   uint32_t black_kings, int side_to_move,
                                                   const damka_statute_count* counts, size_t n_counts,
                                                   damka_statute_verdict* out) {
  using namespace damka;
  return capi::guarded([&]() -> damka_status {
    if (tb == nullptr || rulebook == nullptr || out == nullptr)
      return capi::fail(DAMKA_E_BAD_ARGUMENT, "tb, rulebook and out must not be NULL");
    if (side_to_move != DAMKA_WHITE && side_to_move != DAMKA_BLACK)
      return capi::fail(DAMKA_E_BAD_ARGUMENT, "side_to_move must be DAMKA_WHITE (0) or DAMKA_BLACK (1)");
    Position p;
    p.men[0] = white_men;
    p.kings[0] = white_kings;
    p.men[1] = black_men;
    p.kings[1] = black_kings;
    p.side_to_move = side_to_move == DAMKA_WHITE ? Color::White : Color::Black;
    // The probe C API's rule and status (DAMKA_E_INVALID_POSITION).
    if (Status s = probeable(p); !s.ok()) return capi::fail(s.error());
    return judge_counts(tb, rulebook, p, counts, n_counts, out);
  });
}

extern "C" damka_status damka_judge_statute_fen(const damka_tablebase* tb, const char* rulebook, const char* fen,
                                                int moves_played, damka_statute_verdict* out) {
  using namespace damka;
  return capi::guarded([&]() -> damka_status {
    if (tb == nullptr || rulebook == nullptr || out == nullptr)
      return capi::fail(DAMKA_E_BAD_ARGUMENT, "tb, rulebook and out must not be NULL");
    if (moves_played < 0) return capi::fail(DAMKA_E_BAD_ARGUMENT, "moves_played must be >= 0");
    Position p;
    if (damka_status s = capi::read_fen(tb, fen, p); s != DAMKA_OK) return s;
    // directory() is the variant family's folder, <root>/<family>.
    return fill(judge_with_tables(rulebook, tb->tb->rules(), p, moves_played, tb->tb->directory().parent_path()), out);
  });
}
