/* damka C API, draw statutes: the rule-aware probe.
 *
 * Extends damka.h on the same handle: says whether the stronger side can
 * still win a position before the rulebook's draw statutes declare a draw,
 * given the moves already played under the current balance of forces, and
 * names the deciding clause.  Errors are reported as in damka.h (a status,
 * and damka_last_error() for the message); no exception crosses this API.
 *
 *   damka_statute_verdict v;
 *   if (damka_judge_statute_fen(tb, "russian-federation", "W:WKa1,Kc3,Ke5:BKh8", 10, &v) == DAMKA_OK)
 *     printf("%s\n", v.summary);
 *
 * Rulebooks are data files (NAME.json) found in $DAMKA_RULEBOOKS when set,
 * else in <prefix>/share/damka/rulebooks above the library or executable
 * (an installed damka), then data/rulebooks of a source tree.
 */
#ifndef DAMKA_STATUTES_H
#define DAMKA_STATUTES_H

#include <stddef.h>
#include <stdint.h>

#include "damka.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct damka_statute_verdict {
  int covered;       /* 1 when some clause of the rulebook applies to the position */
  int winner;        /* DAMKA_WHITE or DAMKA_BLACK: who wins without statutes; -1 if nobody */
  int wins_in_time;  /* 1 when the winner still wins before any applicable statute declares a draw */
  int moves_needed;  /* the winner's moves the deciding clause counts; -1 if none */
  int moves_left;    /* the deciding clause's limit minus the moves played */
  int limit;         /* the deciding clause's limit in moves; 0 if none */
  char clause[32];   /* the deciding clause id, e.g. "2.1.9.1.3" or "2.1.9.1.5/4-5"; "" if none */
  char summary[512]; /* one line in English, cut to fit */
} damka_statute_verdict;

/* Moves already played under one clause's count: `clause` is a clause number
 * (e.g. "2.1.9.1.5": every entry of that number) or an entry id (e.g.
 * "2.1.9.1.5/4-5"); `moves_played` >= 0 moves of the stronger side. */
typedef struct damka_statute_count {
  const char* clause;
  int moves_played;
} damka_statute_count;

/* Judges a position under the rulebook `rulebook`, each clause with its own
 * count: `counts` holds `n_counts` entries (NULL when n_counts is 0); a
 * clause not named has 0 moves played.  Each applicable clause is judged by
 * its statute-aware count (the winner must end the clause's count, still
 * winning, within limit - moves played).  Reads the handle's table
 * directory; each call computes the statute-aware counts of the position's
 * material and of the balances its exits reach (a fraction of a second at 4
 * pieces, seconds at 5).  Thread-safe (nothing is shared between calls).  Returns DAMKA_OK,
 * DAMKA_E_BAD_FEN, DAMKA_E_BAD_ARGUMENT (NULL, unknown rulebook, a count
 * naming no judgeable clause or negative, a rulebook for another variant),
 * DAMKA_E_INVALID_POSITION (as damka_probe: overlapping pieces, a man on its
 * promotion row, a side without pieces), DAMKA_UNKNOWN (a table is missing),
 * DAMKA_E_CORRUPT or DAMKA_E_IO (a table damaged or not readable now) or
 * DAMKA_E_INTERNAL. */
damka_status damka_judge_statute_counts_fen(const damka_tablebase* tb, const char* rulebook, const char* fen,
                                            const damka_statute_count* counts, size_t n_counts,
                                            damka_statute_verdict* out);
/* The same for a position given as four bitboards (damka.h's square
 * numbering) and the side to move (DAMKA_WHITE or DAMKA_BLACK). */
damka_status damka_judge_statute_counts(const damka_tablebase* tb, const char* rulebook, uint32_t white_men,
                                        uint32_t white_kings, uint32_t black_men, uint32_t black_kings,
                                        int side_to_move, const damka_statute_count* counts, size_t n_counts,
                                        damka_statute_verdict* out);

/* One count for every applicable clause (a caller tracking one count since
 * the balance arose).  Judges a position given as a FEN under the rulebook `rulebook` (e.g.
 * "russian-federation", "ukrainian-64"); moves_played >= 0 moves of the
 * stronger side since the current balance arose.  Reads the handle's table
 * directory.  Returns DAMKA_OK, DAMKA_E_BAD_FEN, DAMKA_E_BAD_ARGUMENT (NULL,
 * unknown rulebook, negative moves, a rulebook for another variant),
 * DAMKA_E_INVALID_POSITION (a side without pieces), DAMKA_UNKNOWN (a table is
 * missing), DAMKA_E_CORRUPT or DAMKA_E_IO, or DAMKA_E_INTERNAL. */
damka_status damka_judge_statute_fen(const damka_tablebase* tb, const char* rulebook, const char* fen,
                                     int moves_played, damka_statute_verdict* out);

#ifdef __cplusplus
}
#endif

#endif /* DAMKA_STATUTES_H */
