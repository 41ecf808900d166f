// damka annotate, the run: every game annotated from the tables, printed
// as it is done (annotate_command.hpp).
#include "annotate_command.hpp"

namespace damka::cli {

int run_annotate(const AnnotateCommandOptions& o, const AnnotateSetup& s, const Report& report) {
  AnnotateOptions aopt;
  aopt.rulebook = s.book ? &*s.book : nullptr;
  AnnotatePrinter printer(o, report);
  for (std::size_t i = 0; i < s.games.size(); ++i) printer.game(annotate_game(*s.tb, s.games[i], i + 1, aopt));
  printer.summary(s);
  return printer.skipped() ? 1 : 0;
}

}  // namespace damka::cli
