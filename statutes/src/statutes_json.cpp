// The verdict JSON of the front ends (statutes_json.hpp).
#include "damka/statutes_json.hpp"

namespace damka {

nlohmann::ordered_json statutes_json(std::string_view rulebook, int moves_played,
                                     const Expected<StatuteVerdict>& verdict) {
  if (!verdict.ok())
    return {{"rulebook", std::string(rulebook)}, {"status", "unknown"}, {"error", verdict.message()}};
  nlohmann::ordered_json v = verdict_json(*verdict);
  v["rulebook"] = std::string(rulebook);
  v["moves_played"] = moves_played;
  return v;
}

}  // namespace damka
