/* A pure C99 program probing through damka.h.
 *
 *   probe_c_api_test <tables dir>
 *
 * The directory holds Russian tables of up to 3 pieces (CTest builds them
 * with `damka generate -v russian -n 3` first).  Exit status 0 when every
 * check passes. */
#include <stdio.h>
#include <string.h>

#include "damka.h"

static int failures = 0;

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                       \
    }                                                                   \
  } while (0)

#define SQ(s) (1u << (s))

/* a1 = 0, c1 = 1, ..., b2 = 4, ..., h8 = 31 (see damka.h). */
enum { A1 = 0, C3 = 9, E3 = 10, D4 = 13, E5 = 18, G7 = 27, H8 = 31 };

/* 2 white kings and 1 black king on every placement, both sides to move:
 * WDL and DTW agree, conditional probes after a normal one hit the cache,
 * the best move's value is the position's. */
static void check_all_2k_vs_1k(const damka_tablebase* tb) {
  int a, b, c, stm;
  long probed = 0, wins = 0;
  for (a = 0; a < 32; ++a)
    for (b = a + 1; b < 32; ++b)
      for (c = 0; c < 32; ++c) {
        if (c == a || c == b) continue;
        for (stm = 0; stm < 2; ++stm) {
          damka_value wdl, dtw, again;
          damka_status s1 = damka_probe(tb, 0, SQ(a) | SQ(b), 0, SQ(c), stm, DAMKA_WDL, &wdl);
          damka_status s2 = damka_probe(tb, 0, SQ(a) | SQ(b), 0, SQ(c), stm, DAMKA_DTW, &dtw);
          damka_status s3 = damka_probe_conditional(tb, 0, SQ(a) | SQ(b), 0, SQ(c), stm, DAMKA_DTW, &again);
          CHECK(s1 == DAMKA_OK && s2 == DAMKA_OK && s3 == DAMKA_OK);
          if (s1 != DAMKA_OK || s2 != DAMKA_OK || s3 != DAMKA_OK) return;
          CHECK(wdl.result == dtw.result && wdl.plies == 0);
          CHECK(again.result == dtw.result && again.plies == dtw.plies);
          if (dtw.result == DAMKA_WIN) ++wins;
          if ((a + b + c) % 7 == 0) {
            damka_move_value moves[64];
            size_t n = 0;
            damka_status sm = damka_probe_moves(tb, 0, SQ(a) | SQ(b), 0, SQ(c), stm, moves, 64, &n);
            CHECK(sm == DAMKA_OK);
            if (sm == DAMKA_OK && n > 0) {
              size_t i;
              CHECK(moves[0].dtw.result == dtw.result && moves[0].dtw.plies == dtw.plies);
              for (i = 1; i < n; ++i) CHECK(moves[i].dtw.result <= moves[i - 1].dtw.result);
            }
            if (sm == DAMKA_OK && n == 0) CHECK(dtw.result == DAMKA_LOSS && dtw.plies == 0);
          }
          ++probed;
        }
      }
  CHECK(probed == 2 * 496 * 30);
  CHECK(wins > 0);
  printf("2Kv1K: %ld positions probed, %ld wins for the side to move\n", probed, wins);
}

int main(int argc, char** argv) {
  damka_tablebase* tb = NULL;
  damka_value v;
  damka_status s;
  damka_move_value moves[64];
  size_t n = 0;
  char line[4096];

  if (argc != 2) {
    fprintf(stderr, "usage: %s <tables dir>\n", argv[0]);
    return 2;
  }

  /* Opening: errors. */
  CHECK(damka_open("no-such-variant", argv[1], 1u << 20, &tb) == DAMKA_E_BAD_ARGUMENT && tb == NULL);
  CHECK(strlen(damka_last_error()) > 0);
  CHECK(damka_open("russian", "/nonexistent/damka/tables", 1u << 20, &tb) == DAMKA_E_OPEN && tb == NULL);
  s = damka_open("Russian", argv[1], 4u << 20, &tb);
  if (s != DAMKA_OK) {
    fprintf(stderr, "damka_open: %s: %s\n", damka_status_string(s), damka_last_error());
    return 1;
  }
  CHECK(damka_max_pieces(tb) == 3);

  /* Two white kings against one: a1 and c3 vs h8, White to move. */
  s = damka_probe(tb, 0, SQ(A1) | SQ(C3), 0, SQ(H8), DAMKA_WHITE, DAMKA_DTW, &v);
  CHECK(s == DAMKA_OK);
  {
    damka_value f;
    CHECK(damka_probe_fen(tb, "W:WKa1,Kc3:BKh8", DAMKA_DTW, &f) == DAMKA_OK);
    CHECK(f.result == v.result && f.plies == v.plies);
    printf("W:WKa1,Kc3:BKh8 DTW: %d in %d plies\n", f.result, f.plies);
  }

  /* A capture position: the black king on e5 is taken from c3 at once. */
  CHECK(damka_probe(tb, 0, SQ(C3), 0, SQ(E5), DAMKA_WHITE, DAMKA_DTW, &v) == DAMKA_OK);
  CHECK(v.result == DAMKA_WIN && v.plies == 1);
  CHECK(damka_probe(tb, 0, SQ(C3), 0, SQ(E5), DAMKA_WHITE, DAMKA_DTC, &v) == DAMKA_OK);
  CHECK(v.result == DAMKA_WIN && v.plies == 1);
  CHECK(damka_probe_moves_fen(tb, "W:WKc3:BKe5", moves, 64, &n) == DAMKA_OK);
  CHECK(n >= 1 && moves[0].dtw.result == DAMKA_WIN && moves[0].dtw.plies == 1 && moves[0].taken == SQ(E5));
  CHECK(damka_principal_variation_fen(tb, "W:WKc3:BKe5", line, sizeof line) == DAMKA_OK);
  CHECK(line[0] != '\0' && strchr(line, ' ') == NULL);
  printf("W:WKc3:BKe5 PV: %s\n", line);

  /* Root probing: the value-keeping moves, ranked by DTW (all tables here). */
  {
    damka_root_move root[64];
    size_t rn = 0;
    int ranked = -1;
    CHECK(damka_probe_root_fen(tb, "W:WKc3:BKe5", root, 64, &rn, &ranked) == DAMKA_OK);
    CHECK(rn >= 1 && rn <= n && ranked == DAMKA_RANKED_DTW);
    CHECK(root[0].wdl.result == DAMKA_WIN && root[0].dtw_known && root[0].dtw.plies == 1 && root[0].taken == SQ(E5));
    for (size_t i = 0; i < rn; ++i) CHECK(root[i].wdl.result == DAMKA_WIN);
    CHECK(damka_probe_root_fen(tb, "W:WKc3:BKe5", root, 0, &rn, NULL) == DAMKA_E_BUFFER_TOO_SMALL && rn >= 1);
    CHECK(damka_probe_root(tb, 0, SQ(C3), 0, SQ(E5), DAMKA_WHITE, root, 64, &rn, &ranked) == DAMKA_OK && rn >= 1);
    CHECK(damka_probe_root(NULL, 0, SQ(C3), 0, SQ(E5), DAMKA_WHITE, root, 64, &rn, &ranked) == DAMKA_E_BAD_ARGUMENT);
  }

  /* The side to move without pieces has lost in 0 plies. */
  CHECK(damka_probe(tb, 0, SQ(D4), 0, 0, DAMKA_BLACK, DAMKA_DTW, &v) == DAMKA_OK);
  CHECK(v.result == DAMKA_LOSS && v.plies == 0);

  /* Not answerable: 4 pieces (no tables), invalid positions, bad input. */
  CHECK(damka_probe(tb, 0, SQ(A1) | SQ(C3) | SQ(E3), 0, SQ(H8), DAMKA_WHITE, DAMKA_WDL, &v) == DAMKA_UNKNOWN);
  CHECK(strlen(damka_last_error()) > 0);
  CHECK(damka_probe(tb, 0, SQ(A1), 0, SQ(A1), DAMKA_WHITE, DAMKA_WDL, &v) == DAMKA_E_INVALID_POSITION);
  CHECK(damka_probe(tb, 0, SQ(A1), 0, 0, DAMKA_WHITE, DAMKA_WDL, &v) == DAMKA_E_INVALID_POSITION);
  CHECK(damka_probe(tb, SQ(H8), 0, 0, SQ(A1), DAMKA_WHITE, DAMKA_WDL, &v) == DAMKA_E_INVALID_POSITION);
  CHECK(damka_probe(tb, 0, SQ(A1), 0, SQ(H8), 2, DAMKA_WDL, &v) == DAMKA_E_BAD_ARGUMENT);
  CHECK(damka_probe(tb, 0, SQ(A1), 0, SQ(H8), DAMKA_WHITE, (damka_metric)7, &v) == DAMKA_E_BAD_ARGUMENT);
  CHECK(damka_probe(tb, 0, SQ(A1), 0, SQ(H8), DAMKA_WHITE, DAMKA_WDL, NULL) == DAMKA_E_BAD_ARGUMENT);
  CHECK(damka_probe_fen(tb, "W:Wz9:Bh8", DAMKA_WDL, &v) == DAMKA_E_BAD_FEN);
  CHECK(strlen(damka_last_error()) > 0);
  CHECK(damka_probe_moves_fen(tb, "W:WKa1,Kc3:BKh8", moves, 1, &n) == DAMKA_E_BUFFER_TOO_SMALL && n > 1);
  CHECK(strcmp(damka_status_string(DAMKA_UNKNOWN), "unknown") == 0);
  CHECK(strcmp(damka_status_string(DAMKA_E_IO), "i/o error") == 0);
  CHECK(strcmp(damka_status_string((damka_status)99), "unknown status") == 0);

  check_all_2k_vs_1k(tb);

  damka_close(tb);
  damka_close(NULL);

  /* With no cache a conditional probe never answers from memory. */
  CHECK(damka_open("russian", argv[1], 0, &tb) == DAMKA_OK);
  CHECK(damka_probe(tb, 0, SQ(A1) | SQ(G7), 0, SQ(H8), DAMKA_WHITE, DAMKA_DTW, &v) == DAMKA_OK);
  CHECK(damka_probe_conditional(tb, 0, SQ(A1) | SQ(G7), 0, SQ(H8), DAMKA_WHITE, DAMKA_DTW, &v) == DAMKA_NOT_CACHED);
  damka_close(tb);

  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all C API checks passed\n");
  return 0;
}
