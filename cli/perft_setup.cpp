// damka perft: the variant and start position (perft_command.hpp).
#include "damka/notation.hpp"
#include "perft_command.hpp"

namespace damka::cli {

Expected<PerftSetup> setup_perft(const PerftCommandOptions& o, Report& report) {
  auto rules = variant_named(o.variant);
  if (!rules) return rules.error();
  const Rules& r = **rules;
  report.set("variant", std::string(r.name));
  PerftSetup s;
  s.rules = &r;
  s.start = start_position(r);
  if (!o.fen.empty()) {
    auto parsed = parse_fen(r, o.fen);
    if (!parsed) return Error("bad FEN '" + o.fen + "': " + parsed.message(), ErrorCode::InvalidArgument);
    s.start = *parsed;
  }
  s.mode = o.paths ? MoveMode::AllPaths : MoveMode::Merged;
  return s;
}

}  // namespace damka::cli
