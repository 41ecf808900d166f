// The record of a StatsTally (stats_tally.hpp).
#include "damka/stats_tally.hpp"

#include <nlohmann/json.hpp>

#include "damka/slots.hpp"

namespace damka {

std::string stats_tally_record(const Material& m, const StatsRecord& r) {
  using json = nlohmann::json;
  auto counts = [](const WdlCounts& c) { return json::array({c.wins, c.draws, c.losses}); };
  auto longest = [](const LongestSlot& w) -> json {
    if (!w.found) return nullptr;
    return {{"plies", w.plies}, {"count", w.count}, {"slot", w.slot}};
  };
  const StatsTally& t = r.tally;
  return json{{"material", m.name()},
              {"white_to_move", counts(t.by_side[0])},
              {"black_to_move", counts(t.by_side[1])},
              {"captures", t.captures},
              {"has_dtw", r.has_dtw},
              {"has_dtc", r.has_dtc},
              {"dtw", longest(t.dtw)},
              {"dtc", longest(t.dtc)}}
      .dump();
}

Expected<StatsRecord> parse_stats_tally_record(const Material& m, std::string_view text) {
  using json = nlohmann::json;
  const Error bad(m.name() + ": not a statistics record of this material", ErrorCode::InvalidArgument);
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!m.is_valid() || !m.is_canonical() || !j.is_object() || j.value("material", "") != m.name()) return bad;
  const std::uint64_t slots = table_slots(m);
  StatsRecord r;
  StatsTally& t = r.tally;
  try {
    for (int side = 0; side < 2; ++side) {
      const json& c = j.at(side == 0 ? "white_to_move" : "black_to_move");
      t.by_side[side] = {c.at(0).get<std::uint64_t>(), c.at(1).get<std::uint64_t>(), c.at(2).get<std::uint64_t>()};
    }
    t.captures = j.at("captures").get<std::uint64_t>();
    r.has_dtw = j.at("has_dtw").get<bool>();
    r.has_dtc = j.at("has_dtc").get<bool>();
    for (LongestSlot* l : {&t.dtw, &t.dtc}) {
      const json& w = j.at(l == &t.dtw ? "dtw" : "dtc");
      if (w.is_null()) continue;
      *l = {true, w.at("plies").get<std::uint16_t>(), w.at("slot").get<std::uint64_t>(),
            w.at("count").get<std::uint64_t>()};
      if (l->slot >= slots) return bad;
    }
  } catch (const json::exception&) {
    return bad;
  }
  WdlCounts total = t.by_side[0];
  total += t.by_side[1];
  if (total.positions() != slots || t.captures > slots) return bad;
  return r;
}

}  // namespace damka
