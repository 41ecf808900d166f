// Annotated games written as PDN and as JSON (annotate.hpp).
#include "damka/annotate.hpp"

#include "damka/words.hpp"

namespace damka {
namespace {

// "White wins in 7 plies", "Black wins", "draw", for the side `to_move` to move.
std::string value_text(const GameValue& v, Color to_move) {
  std::string s = winner_text(to_move, v.wdl);
  if (v.wdl != Wdl::Draw && v.dtw_known) s += " in " + plies_text(v.dtw);
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// "15th"
std::string ordinal(int n) {
  const int t = n % 100, u = n % 10;
  const char* suffix = (t >= 11 && t <= 13) ? "th" : u == 1 ? "st" : u == 2 ? "nd" : u == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

std::string statute_text(const AnnotatedGame& g, const StatuteEnd& e) {
  return "draw by " + g.rulebook + " " + e.clause + ": " + color_title(e.stronger) + "'s " + ordinal(e.counted) +
         " move under its count (limit " + std::to_string(e.limit) + (e.limit == 1 ? " move" : " moves") + ")";
}

std::string escape_tag(const std::string& v) {
  std::string s;
  for (char c : v) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s;
}

// Comments must not close early: a '}' in a move or FEN never occurs, but be safe.
std::string comment(std::string text) {
  for (char& c : text)
    if (c == '}' || c == '{') c = ' ';
  return "{" + text + "}";
}

nlohmann::ordered_json value_json(const GameValue& v, Color to_move) {
  if (!v.known) return nullptr;
  nlohmann::ordered_json j = {{"side_to_move", color_word(to_move)}, {"result", result_word(v.wdl)}};
  j["dtw"] = v.dtw_known && v.wdl != Wdl::Draw ? nlohmann::ordered_json(v.dtw) : nlohmann::ordered_json(nullptr);
  return j;
}

}  // namespace

std::string annotated_pdn(const AnnotatedGame& g) {
  if (!g.error.empty()) return "";
  std::string out;
  bool annotator = false;
  for (const auto& [k, v] : g.tags) {
    out += "[" + k + " \"" + escape_tag(v) + "\"]\n";
    annotator = annotator || k == "Annotator";
  }
  if (!annotator) out += "[Annotator \"damka\"]\n";
  out += "\n";
  // Tokens, wrapped at 79 columns.
  std::string line;
  auto put = [&](const std::string& tok) {
    if (!line.empty() && line.size() + 1 + tok.size() > 79) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + tok;
  };
  Color to_move = g.start_to_move;
  if (g.start.known) put(comment("start: " + value_text(g.start, to_move)));
  bool need_number = true;
  for (const AnnotatedMove& m : g.moves) {
    const bool first = m.number.find("...") == std::string::npos;
    put((first || need_number ? m.number + " " : std::string()) + m.move + (m.error ? "?" : ""));
    std::string note;
    if (m.after.known) note = value_text(m.after, opposite(to_move));
    if (m.error) {
      note += std::string(note.empty() ? "" : "; ") + "error: " + result_word(m.before_result) + " -> " + result_word(m.after_result);
      if (!m.keeping.empty())
        note += std::string(m.keeping.size() == 1 ? "; the move keeping the " : "; moves keeping the ") +
                result_word(m.before_result) + ": " + join(m.keeping);
    }
    for (std::size_t e : m.statute_ends) note += std::string(note.empty() ? "" : "; ") + statute_text(g, g.statute_ends[e]);
    need_number = !note.empty();
    if (!note.empty()) put(comment(note));
    to_move = opposite(to_move);
  }
  put(g.result.empty() ? "*" : g.result);
  out += line + "\n\n";
  return out;
}

nlohmann::ordered_json annotated_json(const AnnotatedGame& g) {
  nlohmann::ordered_json j = {{"index", g.index}, {"line", g.line}};
  nlohmann::ordered_json tags = nlohmann::ordered_json::object();
  for (const auto& [k, v] : g.tags)
    if (!tags.contains(k)) tags[k] = v;
  j["tags"] = tags;
  if (!g.error.empty()) {
    j["error"] = g.error;
    return j;
  }
  j["result"] = g.result.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(g.result);
  j["start_fen"] = g.start_fen;
  Color to_move = g.start_to_move;
  j["start"] = value_json(g.start, to_move);
  nlohmann::ordered_json moves = nlohmann::ordered_json::array();
  for (const AnnotatedMove& m : g.moves) {
    to_move = opposite(to_move);
    nlohmann::ordered_json e = {{"number", m.number}, {"move", m.move}, {"fen_after", m.fen_after},
                                {"value", value_json(m.after, to_move)}};
    if (m.error)
      e["error"] = {{"from", result_word(m.before_result)}, {"to", result_word(m.after_result)}, {"keeping", m.keeping}};
    if (!m.statute_ends.empty()) {
      nlohmann::ordered_json ends = nlohmann::ordered_json::array();
      for (std::size_t i : m.statute_ends) ends.push_back(g.statute_ends[i].clause);
      e["statute_ends"] = ends;
    }
    moves.push_back(e);
  }
  j["moves"] = moves;
  j["errors"] = g.errors();
  if (!g.rulebook.empty()) {
    nlohmann::ordered_json ends = nlohmann::ordered_json::array();
    for (const StatuteEnd& e : g.statute_ends)
      ends.push_back({{"clause", e.clause},
                      {"limit", e.limit},
                      {"counted", e.counted},
                      {"stronger", color_word(e.stronger)},
                      {"ply", e.ply},
                      {"number", g.moves[e.ply].number},
                      {"move", g.moves[e.ply].move},
                      {"text", statute_text(g, e)}});
    j["rulebook"] = g.rulebook;
    j["statute_ends"] = ends;
  }
  return j;
}

}  // namespace damka
