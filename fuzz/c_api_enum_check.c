/* A C caller passing enum arguments outside their enums (legal in C) to a
 * library built with UBSan (scripts/fuzz.sh builds and runs it): the library
 * must refuse them without loading them as C++ enums (-fsanitize=enum would
 * stop it).  Exit status 0 when every check passes.
 *
 *   c_api_enum_check DIR   (any directory: no table is needed) */
#include <stdio.h>
#include <string.h>

#include "damka.h"

int main(int argc, char** argv) {
  damka_tablebase* tb = NULL;
  if (damka_open("russian", argc > 1 ? argv[1] : ".", 1u << 20, &tb) != DAMKA_OK) {
    fprintf(stderr, "damka_open: %s\n", damka_last_error());
    return 1;
  }
  const int bad[] = {3, 7, -1, 1 << 30};
  int failures = 0;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    const damka_metric m = (damka_metric)bad[i];
    damka_value v;
    if (damka_probe(tb, 1u << 9, 0, 0, 1u << 31, DAMKA_WHITE, m, &v) != DAMKA_E_BAD_ARGUMENT) ++failures;
    if (damka_probe_conditional(tb, 1u << 9, 0, 0, 1u << 31, DAMKA_WHITE, m, &v) != DAMKA_E_BAD_ARGUMENT) ++failures;
    if (damka_probe_fen(tb, "W:Wc3:BKh8", m, &v) != DAMKA_E_BAD_ARGUMENT) ++failures;
    if (strcmp(damka_status_string((damka_status)(bad[i] + 20)), "unknown status") != 0) ++failures;
  }
  damka_close(tb);
  if (failures) fprintf(stderr, "c_api_enum_check: %d checks failed\n", failures);
  return failures != 0;
}
