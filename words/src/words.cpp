// The words of values, results and colours (words.hpp).
#include "damka/words.hpp"

namespace damka {

std::optional<Color> parse_color(std::string_view text) {
  if (text == "white" || text == "w" || text == "W") return Color::White;
  if (text == "black" || text == "b" || text == "B") return Color::Black;
  return std::nullopt;
}

std::optional<Wdl> parse_result(std::string_view text) {
  for (Wdl w : {Wdl::Win, Wdl::Draw, Wdl::Loss})
    if (text == result_word(w)) return w;
  return std::nullopt;
}

std::optional<Metric> parse_metric(std::string_view text) {
  for (Metric m : {Metric::WDL, Metric::DTW, Metric::DTC}) {
    const std::string_view name = metric_name(m);
    std::string upper(name);
    for (char& c : upper) c = static_cast<char>(c - 'a' + 'A');
    if (text == name || text == upper) return m;
  }
  return std::nullopt;
}

std::string plies_text(int plies) { return std::to_string(plies) + (plies == 1 ? " ply" : " plies"); }

std::string describe_value(Value v, Metric metric) {
  if (v.wdl == Wdl::Draw || metric == Metric::WDL) return result_word(v.wdl);
  return std::string(result_word(v.wdl)) + " in " + plies_text(v.plies);
}

std::string value_short(Value v, Metric metric) {
  if (v.wdl == Wdl::Draw || metric == Metric::WDL) return result_word(v.wdl);
  return std::string(result_word(v.wdl)) + " in " + std::to_string(v.plies);
}

std::string winner_text(Color to_move, Wdl result) {
  if (result == Wdl::Draw) return "draw";
  return std::string(color_title(winner_of(to_move, result))) + " wins";
}

std::string winner_word(Color to_move, Wdl result) {
  if (result == Wdl::Draw) return "draw";
  return std::string(color_word(winner_of(to_move, result))) + " wins";
}

}  // namespace damka
