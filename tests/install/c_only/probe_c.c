/* An outside C program using an installed damka: probes one position and
 * judges it under a rulebook.  argv: tables folder, FEN.
 * Prints "result plies" of the DTW value, then the verdict's summary.
 * Built with DAMKA_PROBE_ONLY (linked with damka::probe alone) it only probes. */
#include <damka.h>
#ifndef DAMKA_PROBE_ONLY
#include <damka_statutes.h>
#endif
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: probe_c TABLES FEN\n");
    return 2;
  }
  damka_tablebase* tb = NULL;
  if (damka_open("russian", argv[1], 16u << 20, &tb) != DAMKA_OK) {
    fprintf(stderr, "open: %s\n", damka_last_error());
    return 1;
  }
  damka_value v;
  if (damka_probe_fen(tb, argv[2], DAMKA_DTW, &v) != DAMKA_OK) {
    fprintf(stderr, "probe: %s\n", damka_last_error());
    damka_close(tb);
    return 1;
  }
  printf("%s %d\n", v.result > 0 ? "win" : v.result < 0 ? "loss" : "draw", v.plies);
#ifndef DAMKA_PROBE_ONLY
  damka_statute_verdict verdict;
  if (damka_judge_statute_fen(tb, "russian-federation", argv[2], 0, &verdict) != DAMKA_OK) {
    fprintf(stderr, "statutes: %s\n", damka_last_error());
    damka_close(tb);
    return 1;
  }
  printf("%s\n", verdict.summary);
#endif
  damka_close(tb);
  return 0;
}
