// The words and codes of probe statuses, and the one rule of which
// positions can be probed (probe.hpp).
#include <bit>

#include "damka/probe.hpp"

namespace damka {

std::string_view probe_status_name(ProbeStatus s) {
  switch (s) {
    case ProbeStatus::Ok: return "ok";
    case ProbeStatus::Unknown: return "unknown (table missing)";
    case ProbeStatus::NotCached: return "not in cache";
    case ProbeStatus::Corrupt: return "table corrupt";
    case ProbeStatus::Invalid: return "invalid position";
    case ProbeStatus::IoError: return "i/o error (table not readable now)";
  }
  return "?";
}

ErrorCode probe_status_code(ProbeStatus s) {
  switch (s) {
    case ProbeStatus::Unknown: return ErrorCode::NotFound;
    case ProbeStatus::Corrupt: return ErrorCode::Corrupt;
    case ProbeStatus::IoError: return ErrorCode::Io;
    case ProbeStatus::Invalid: return ErrorCode::InvalidPosition;
    case ProbeStatus::Ok:
    case ProbeStatus::NotCached: break;
  }
  return ErrorCode::Other;
}

const char* unprobeable_reason(const Position& p) {
  if (p.side_to_move != Color::White && p.side_to_move != Color::Black)
    return "the side to move is neither White nor Black";
  if ((p.men[0] | p.kings[0]) & (p.men[1] | p.kings[1]) || (p.men[0] & p.kings[0]) || (p.men[1] & p.kings[1]))
    return "two pieces stand on one square";
  if (!p.is_valid()) return "a man stands on its own promotion row";
  if (popcount(p.pieces(Color::White)) > 12) return "White has more than 12 pieces";
  if (popcount(p.pieces(Color::Black)) > 12) return "Black has more than 12 pieces";
  if (p.pieces(opposite(p.side_to_move)) == 0) return "the side not to move has no pieces (the game is over)";
  return nullptr;
}

Status probeable(const Position& p) {
  if (const char* why = unprobeable_reason(p)) return Error(std::string("invalid position: ") + why, ErrorCode::InvalidPosition);
  return Status();
}

Status probeable(const Position& p, const Tablebase& tb) {
  if (Status s = probeable(p); !s.ok()) return s;
  if (p.count() > tb.max_pieces())
    return Error("no table has " + std::to_string(p.count()) + " pieces (the largest in " + tb.directory().string() +
                     " has " + std::to_string(tb.max_pieces()) + ")",
                 ErrorCode::NotFound);
  return Status();
}

Error probe_status_error(const Tablebase& tb, const Position& p, ProbeStatus s, Metric metric, ProbeMode mode) {
  const ErrorCode code = probe_status_code(s);
  switch (s) {
    case ProbeStatus::Unknown: {
      std::string names;
      if (mode == ProbeMode::Normal)
        for (const Material& m : tb.missing_tables(p, metric)) names += (names.empty() ? "" : ", ") + m.name();
      if (names.empty()) names = material_of(p).canonical().name();
      return Error("no " + std::string(metric_name(metric)) + " table for " + names + " in " + tb.directory().string(),
                   code);
    }
    case ProbeStatus::Corrupt: {
      std::string why = Tablebase::thread_last_problem();
      if (why.empty())
        if (const auto errors = tb.errors(); !errors.empty()) why = errors.back();
      return Error(why.empty() ? std::string("a table is corrupt") : why, code);
    }
    case ProbeStatus::IoError: {
      const std::string& why = Tablebase::thread_last_problem();
      return Error("i/o error (a table could not be read now; not damaged, try again)" +
                       (why.empty() ? std::string() : ": " + why),
                   code);
    }
    case ProbeStatus::Invalid: {
      const Status v = probeable(p);
      return Error(v.ok() ? std::string("invalid position") : v.message(), code);
    }
    case ProbeStatus::NotCached: return Error("not in the cache (a conditional probe reads no file)", code);
    case ProbeStatus::Ok: break;
  }
  return Error("no error (the probe answered)", code);
}

}  // namespace damka
