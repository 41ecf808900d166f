// Rulebooks: parsing, validation and lookup of data/rulebooks/<name>.json.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "damka/rulebook.hpp"

#ifndef DAMKA_SOURCE_RULEBOOKS_DIR
#define DAMKA_SOURCE_RULEBOOKS_DIR ""
#endif
#ifndef DAMKA_PREFIX_RULEBOOKS_DIR
#define DAMKA_PREFIX_RULEBOOKS_DIR ""
#endif
#ifndef DAMKA_INSTALLED_RULEBOOKS_DIR
#define DAMKA_INSTALLED_RULEBOOKS_DIR "share/damka/rulebooks"
#endif

namespace damka {
namespace {

using nlohmann::json;

constexpr Condition kConditions[] = {Condition::LoneKingOnMainRoad, Condition::LoneKingOffMainRoad,
                                     Condition::StrongerHoldsMainRoad, Condition::BothSidesHaveKings};

// Thrown inside the parser only; parse_rulebook turns it into an Error.
struct BadBook {
  std::string message;
};

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw BadBook{where + ": " + what}; }

void check_keys(const json& j, const std::string& where, std::initializer_list<std::string_view> allowed) {
  if (!j.is_object()) fail(where, "must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(where, "unknown key '" + it.key() + "' (allowed: " + list + ")");
    }
  }
}

std::string get_string(const json& j, const std::string& where, const char* key, bool required) {
  if (!j.contains(key)) {
    if (required) fail(where, std::string("missing '") + key + "'");
    return {};
  }
  if (!j[key].is_string()) fail(where, std::string("'") + key + "' must be a string");
  return j[key].get<std::string>();
}

// 3 (exactly), "3" (exactly), "3+" (at least), {"min": 2, "max": 3}.
CountSpec parse_count(const json& j, const std::string& where) {
  CountSpec c;
  auto non_negative = [&](long long v) {
    if (v < 0 || v > 32) fail(where, "count " + std::to_string(v) + " out of range 0..32");
    return static_cast<int>(v);
  };
  if (j.is_number_integer()) {
    c.min = c.max = non_negative(j.get<long long>());
  } else if (j.is_string()) {
    std::string s = j.get<std::string>();
    const bool plus = !s.empty() && s.back() == '+';
    if (plus) s.pop_back();
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 2)
      fail(where, "count '" + j.get<std::string>() + "' is not N or N+");
    c.min = non_negative(std::stoll(s));
    c.max = plus ? INT_MAX : c.min;
  } else if (j.is_object()) {
    check_keys(j, where, {"min", "max"});
    if (j.contains("min")) {
      if (!j["min"].is_number_integer()) fail(where, "'min' must be an integer");
      c.min = non_negative(j["min"].get<long long>());
    }
    if (j.contains("max")) {
      if (!j["max"].is_number_integer()) fail(where, "'max' must be an integer");
      c.max = non_negative(j["max"].get<long long>());
    }
    if (c.min > c.max) fail(where, "min above max");
  } else {
    fail(where, "a count must be N, \"N\", \"N+\" or {\"min\": .., \"max\": ..}");
  }
  return c;
}

SideSpec parse_side(const json& j, const std::string& where) {
  check_keys(j, where, {"kings", "men", "pieces"});
  SideSpec s;
  if (j.contains("kings")) s.kings = parse_count(j["kings"], where + ".kings");
  if (j.contains("men")) s.men = parse_count(j["men"], where + ".men");
  if (j.contains("pieces")) s.pieces = parse_count(j["pieces"], where + ".pieces");
  // Every side of a table position has a piece.
  if (s.pieces.min < 1) s.pieces.min = 1;
  if (s.kings.min + s.men.min > s.pieces.max || (s.kings.max != INT_MAX && s.men.max != INT_MAX &&
                                                 s.kings.max + s.men.max < s.pieces.min))
    fail(where, "kings, men and pieces contradict each other");
  return s;
}

Clause parse_clause(const json& j, const std::string& where0) {
  Clause c;
  if (!j.is_object()) fail(where0, "a clause must be an object");
  c.id = get_string(j, where0, "id", true);
  const std::string where = where0 + " (" + c.id + ")";
  if (c.id.empty() || c.id.find_first_of(" \t\n") != std::string::npos) fail(where, "'id' must be a word");
  c.number = get_string(j, where, "clause", false);
  if (c.number.empty()) c.number = c.id;
  c.text = get_string(j, where, "text", true);
  c.summary = get_string(j, where, "summary", true);
  if (!j.contains("judgeable") || !j["judgeable"].is_boolean()) fail(where, "'judgeable' (true/false) is required");
  c.judgeable = j["judgeable"].get<bool>();
  if (!c.judgeable) {
    check_keys(j, where, {"id", "clause", "text", "summary", "judgeable", "reason"});
    c.reason = get_string(j, where, "reason", true);
    return c;
  }
  check_keys(j, where, {"id", "clause", "text", "summary", "judgeable", "material", "position", "except", "limit",
                        "restarts", "goal", "reading"});
  if (!j.contains("material")) fail(where, "missing 'material'");
  const json& m = j["material"];
  check_keys(m, where + ".material", {"pieces", "sides"});
  if (m.contains("pieces")) c.pieces = parse_count(m["pieces"], where + ".material.pieces");
  if (c.pieces.min < 2) c.pieces.min = 2;
  if (!m.contains("sides") || !m["sides"].is_array() || m["sides"].empty())
    fail(where, "'material.sides' must be a non-empty array of {\"stronger\": .., \"weaker\": ..}");
  for (std::size_t i = 0; i < m["sides"].size(); ++i) {
    const json& sp = m["sides"][i];
    const std::string w = where + ".material.sides[" + std::to_string(i) + "]";
    check_keys(sp, w, {"stronger", "weaker"});
    if (!sp.contains("stronger") || !sp.contains("weaker")) fail(w, "needs 'stronger' and 'weaker'");
    c.sides.push_back({parse_side(sp["stronger"], w + ".stronger"), parse_side(sp["weaker"], w + ".weaker")});
  }
  if (j.contains("position")) {
    if (!j["position"].is_array()) fail(where, "'position' must be an array of condition names");
    for (const json& x : j["position"]) {
      if (!x.is_string()) fail(where, "'position' entries must be strings");
      const std::string name = x.get<std::string>();
      bool found = false;
      for (Condition k : kConditions) {
        if (condition_name(k) == name) {
          c.conditions.push_back(k);
          found = true;
        }
      }
      if (!found) {
        std::string list;
        for (Condition k : kConditions) list += (list.empty() ? "" : ", ") + std::string(condition_name(k));
        fail(where, "unknown position condition '" + name + "' (known: " + list + ")");
      }
    }
  }
  if (j.contains("except")) {
    if (!j["except"].is_array()) fail(where, "'except' must be an array of clause ids");
    for (const json& x : j["except"]) {
      if (!x.is_string()) fail(where, "'except' entries must be strings");
      c.except.push_back(x.get<std::string>());
    }
  }
  if (!j.contains("limit") || !j["limit"].is_number_integer()) fail(where, "'limit' (moves, an integer) is required");
  const long long limit = j["limit"].get<long long>();
  if (limit < 1 || limit > 1000) fail(where, "'limit' must be 1..1000 moves");
  c.limit = static_cast<int>(limit);
  if (!j.contains("restarts") || !j["restarts"].is_array())
    fail(where, "'restarts' (array of \"capture\", \"promotion\", \"man_move\") is required");
  for (const json& x : j["restarts"]) {
    const std::string r = x.is_string() ? x.get<std::string>() : "";
    if (r == "capture") c.restarts |= kExitCapture;
    else if (r == "promotion") c.restarts |= kExitPromotion;
    else if (r == "man_move") c.restarts |= kExitManMove;
    else fail(where, "unknown restart '" + x.dump() + "' (known: capture, promotion, man_move)");
  }
  // The tables measure counts that run to the end of the game (DTW), that
  // restart on a capture and a promotion (DTC), or on those and any man move
  // (kings-only); nothing else is expressible.
  if (c.restarts != 0 &&
      (c.restarts & (kExitCapture | kExitPromotion)) != (kExitCapture | kExitPromotion))
    fail(where,
         "'restarts' must be [] (the count runs to the end of the game), [capture, promotion] or [capture, "
         "promotion, man_move]: the tables measure nothing else; state any other reading in 'reading'");
  c.goal = get_string(j, where, "goal", true);
  c.reading = get_string(j, where, "reading", false);
  return c;
}

Rulebook parse_book(const json& j, const std::string& origin) {
  check_keys(j, origin, {"name", "title", "source", "counting", "variants", "clauses", "notes"});
  Rulebook b;
  b.name = get_string(j, origin, "name", true);
  b.title = get_string(j, origin, "title", true);
  b.source = get_string(j, origin, "source", true);
  b.counting = get_string(j, origin, "counting", false);
  if (!j.contains("variants") || !j["variants"].is_array() || j["variants"].empty())
    fail(origin, "'variants' must be a non-empty array of variant names");
  for (const json& v : j["variants"]) {
    if (!v.is_string() || !parse_variant(v.get<std::string>()))
      fail(origin, "unknown variant " + v.dump() + " (known: " + variant_names() + ")");
    b.variants.push_back(std::string(rules_of(*parse_variant(v.get<std::string>())).name));
  }
  if (!j.contains("clauses") || !j["clauses"].is_array() || j["clauses"].empty())
    fail(origin, "'clauses' must be a non-empty array");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < j["clauses"].size(); ++i) {
    Clause c = parse_clause(j["clauses"][i], origin + ": clauses[" + std::to_string(i) + "]");
    if (!ids.insert(c.id).second) fail(origin, "clause id '" + c.id + "' used twice");
    b.clauses.push_back(std::move(c));
  }
  for (const Clause& c : b.clauses) {
    for (const std::string& e : c.except) {
      const Clause* x = b.find(e);
      if (!x) fail(origin, "clause " + c.id + ": 'except' names unknown clause '" + e + "'");
      if (!x->judgeable) fail(origin, "clause " + c.id + ": 'except' names clause '" + e + "', which is not judgeable");
      if (!x->except.empty()) fail(origin, "clause " + c.id + ": 'except' names clause '" + e + "', which has its own 'except'");
      if (x == &c) fail(origin, "clause " + c.id + " excepts itself");
    }
  }
  return b;
}

}  // namespace

std::string CountSpec::describe() const {
  if (max == INT_MAX) return std::to_string(min) + "+";
  if (min == max) return std::to_string(min);
  return std::to_string(min) + "-" + std::to_string(max);
}

std::string SideSpec::describe() const {
  auto word = [](const CountSpec& c, const char* one, const char* many) {
    return c.describe() + " " + ((c.min == 1 && c.max == 1) ? one : many);
  };
  const bool any_kings = kings.is_any(), any_men = men.is_any();
  const bool no_kings = kings.min == 0 && kings.max == 0, no_men = men.min == 0 && men.max == 0;
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : " + ") + s; };
  if (!any_kings && !(no_kings && !any_men)) add(no_kings ? "no kings" : word(kings, "king", "kings"));
  if (any_men && !any_kings) add("any men");
  else if (!any_men && !(no_men && !any_kings)) add(no_men ? "no men" : word(men, "man", "men"));
  if (pieces.min > 1 || pieces.max != INT_MAX) add(word(pieces, "piece", "pieces"));
  return out.empty() ? "any pieces" : out;
}

std::string_view condition_name(Condition c) {
  switch (c) {
    case Condition::LoneKingOnMainRoad: return "lone_king_on_main_road";
    case Condition::LoneKingOffMainRoad: return "lone_king_off_main_road";
    case Condition::StrongerHoldsMainRoad: return "stronger_holds_main_road";
    case Condition::BothSidesHaveKings: return "both_sides_have_kings";
  }
  return "?";
}

std::string condition_description(Condition c) {
  switch (c) {
    case Condition::LoneKingOnMainRoad: return "the defender's lone king stands on the main road a1-h8";
    case Condition::LoneKingOffMainRoad: return "the defender's lone king stands off the main road a1-h8";
    case Condition::StrongerHoldsMainRoad: return "a king of the stronger side stands on the main road a1-h8";
    case Condition::BothSidesHaveKings: return "each side has a king";
  }
  return "?";
}

std::string_view count_metric_name(CountMetric m) {
  return m == CountMetric::DTW ? "dtw" : m == CountMetric::DTC ? "dtc" : "kings-only";
}

std::string Clause::restarts_text() const {
  std::string s;
  if (restarts & kExitCapture) s += "capture";
  if (restarts & kExitPromotion) s += std::string(s.empty() ? "" : ", ") + "promotion";
  if (restarts & kExitManMove) s += std::string(s.empty() ? "" : ", ") + "man move";
  return s.empty() ? "nothing (the count runs to the end of the game)" : s;
}

std::string Clause::material_text() const {
  std::string s;
  for (const SidePair& sp : sides) {
    if (!s.empty()) s += ", or ";
    s += sp.stronger.describe() + " vs " + sp.weaker.describe();
  }
  if (pieces.min > 2 || pieces.max != INT_MAX) s += "; " + pieces.describe() + " pieces on the board";
  return s;
}

std::string Clause::condition_text() const {
  std::string s;
  for (Condition c : conditions) s += (s.empty() ? "" : "; ") + condition_description(c);
  if (!except.empty()) {
    s += s.empty() ? "" : "; ";
    s += "not covered by";
    for (std::size_t i = 0; i < except.size(); ++i) s += (i ? ", " : " ") + except[i];
  }
  return s.empty() ? "none" : s;
}

const Clause* Rulebook::find(std::string_view id) const {
  for (const Clause& c : clauses)
    if (c.id == id) return &c;
  return nullptr;
}

bool Rulebook::governs(const Rules& rules) const {
  return std::find(variants.begin(), variants.end(), std::string(rules.name)) != variants.end();
}

Expected<Rulebook> parse_rulebook(std::string_view json_text, std::string_view origin) {
  json j;
  try {
    j = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    return Error(std::string(origin) + ": not valid JSON: " + e.what(), ErrorCode::InvalidArgument);
  } catch (const json::exception& e) {  // e.g. out_of_range: a number too large for a double
    return Error(std::string(origin) + ": cannot read the JSON: " + e.what(), ErrorCode::InvalidArgument);
  }
  try {
    return parse_book(j, std::string(origin));
  } catch (const BadBook& e) {
    return Error(e.message, ErrorCode::InvalidArgument);
  } catch (const json::exception& e) {
    return Error(std::string(origin) + ": " + e.what(), ErrorCode::InvalidArgument);
  }
}

namespace {

// The directory of the file this code was loaded from: libdamka.so, the
// Python module, or the executable it is linked into.
std::filesystem::path code_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&code_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::filesystem::path() : p.parent_path();
}

std::filesystem::path running_exe_dir() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : p.parent_path();
}

}  // namespace

std::vector<std::filesystem::path> rulebook_search_path(const std::filesystem::path& exe_dir,
                                                        const std::filesystem::path& override_dir) {
  if (!override_dir.empty()) return {override_dir};
  if (const char* env = std::getenv("DAMKA_RULEBOOKS"); env != nullptr && *env != '\0')
    return {std::filesystem::path(env)};
  std::vector<std::filesystem::path> dirs;
  auto add = [&](const std::filesystem::path& p) {
    if (p.empty()) return;
    std::error_code ec;
    const std::filesystem::path c = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
    const std::filesystem::path& q = ec ? p : c;
    if (std::find(dirs.begin(), dirs.end(), q) == dirs.end()) dirs.push_back(q);
  };
  // Installed (<prefix>/share/damka/rulebooks) or source-tree (data/rulebooks)
  // layouts, upward from where the running code lives.
  for (const std::filesystem::path& start : {exe_dir, code_dir(), running_exe_dir()}) {
    if (start.empty()) continue;
    std::filesystem::path d = start;
    for (int up = 0; up <= 4; ++up) {
      add(d / DAMKA_INSTALLED_RULEBOOKS_DIR);
      if (up <= 3) add(d / "data" / "rulebooks");
      if (!d.has_parent_path() || d.parent_path() == d) break;
      d = d.parent_path();
    }
  }
  add(std::filesystem::path("data") / "rulebooks");
  add(std::filesystem::path(DAMKA_PREFIX_RULEBOOKS_DIR));
  add(std::filesystem::path(DAMKA_SOURCE_RULEBOOKS_DIR));
  return dirs;
}

std::vector<std::string> known_rulebooks(const std::vector<std::filesystem::path>& dirs, Env& env) {
  std::set<std::string> names;
  for (const auto& d : dirs) {
    auto entries = env.list_dir(d);  // a folder that is not there (or unreadable) offers none
    if (!entries) continue;
    for (const std::string& e : *entries) {
      const std::filesystem::path f(e);
      if (f.extension() == ".json") names.insert(f.stem().string());
    }
  }
  return {names.begin(), names.end()};
}

Expected<Rulebook> load_rulebook(std::string_view name, const std::vector<std::filesystem::path>& dirs, Env& env) {
  const std::string file = std::string(name) + ".json";
  if (name.empty() || name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos)
    return Error("bad rulebook name '" + std::string(name) + "'", ErrorCode::InvalidArgument);
  for (const auto& d : dirs) {
    const std::filesystem::path p = d / file;
    auto info = env.stat(p);
    if (!info) {
      if (info.code() == ErrorCode::NotFound) continue;
      return Error("cannot read " + p.string() + ": " + info.message(), ErrorCode::Io);
    }
    if (!info->regular) continue;
    auto text = read_small_file(env, p, kMaxRulebookBytes);
    if (!text)
      return Error("cannot read " + p.string() + ": " + text.message(),
                   text.code() == ErrorCode::InvalidArgument ? ErrorCode::InvalidArgument : ErrorCode::Io);
    auto book = parse_rulebook(*text, p.string());
    if (!book) return book;
    if (book->name != name)
      return Error(p.string() + ": 'name' is '" + book->name + "' but the file is named '" + std::string(name) + "'", ErrorCode::InvalidArgument);
    book->path = p;
    return book;
  }
  const auto known = known_rulebooks(dirs, env);
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  std::string searched;
  for (const auto& d : dirs) searched += (searched.empty() ? "" : ", ") + d.string();
  return Error("unknown rulebook '" + std::string(name) + "' (known: " + (list.empty() ? "none found" : list) +
               "; searched " + searched + ")", ErrorCode::InvalidArgument);
}

}  // namespace damka
