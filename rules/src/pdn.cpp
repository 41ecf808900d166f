// Reading PDN files (pdn.hpp): games, tags and main-line moves.
#include "damka/pdn.hpp"

#include <cctype>

namespace damka {
namespace {

bool is_result(std::string_view t) {
  return t == "1-0" || t == "0-1" || t == "1/2-1/2" || t == "*" || t == "2-0" || t == "0-2" || t == "1-1" ||
         t == "0-0";
}

bool equal_ci(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::vector<PdnGame> games() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '\n') {
        ++line_;
        ++at_;
      } else if (is_space(c)) {
        ++at_;
      } else if (c == '%' && (at_ == 0 || text_[at_ - 1] == '\n')) {
        skip_line();  // an escape line
      } else if (c == ';') {
        skip_line();
      } else if (c == '[') {
        if (game_has_moves_) finish();  // tags after moves: the next game (its result was missing)
        tag();
      } else if (c == '{') {  // between games: ignored (an unclosed one still ends the reading)
        if (!skip_to('}', "a comment '{'")) return done();
      } else if (c == '(') {
        if (!skip_variation()) return done();
      } else if (c == ')' || c == '}' || c == ']') {
        begin();
        fail(std::string("a '") + c + "' that closes nothing");
        ++at_;
      } else {
        token();
      }
    }
    return done();
  }

 private:
  void begin() {
    if (!open_) {
      open_ = true;
      game_ = PdnGame{};
      game_.line = line_;
    }
  }
  void fail(const std::string& what) {
    begin();
    if (game_.error.empty()) game_.error = "line " + std::to_string(line_) + ": " + what;
  }
  void finish() {
    if (open_) out_.push_back(std::move(game_));
    open_ = false;
    game_has_moves_ = false;
    game_ = PdnGame{};
  }
  std::vector<PdnGame> done() {
    if (open_ && (game_has_moves_ || !game_.tags.empty() || !game_.error.empty())) finish();
    return std::move(out_);
  }
  void skip_line() {
    while (at_ < text_.size() && text_[at_] != '\n') ++at_;
  }
  // Skips to the closing character (counting lines); false at the end of the text.
  bool skip_to(char close, const char* what) {
    const std::size_t start_line = line_;
    for (++at_; at_ < text_.size(); ++at_) {
      if (text_[at_] == '\n') ++line_;
      if (text_[at_] == close) {
        ++at_;
        return true;
      }
    }
    line_ = start_line;
    fail(std::string(what) + " is not closed");
    return false;
  }
  // A variation, nested variations and the comments inside it.
  bool skip_variation() {
    const std::size_t start_line = line_;
    int depth = 0;
    for (; at_ < text_.size(); ++at_) {
      const char c = text_[at_];
      if (c == '\n') ++line_;
      if (c == '{') {
        if (!skip_to('}', "a comment '{' in a variation")) return false;
        --at_;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')' && --depth == 0) {
        ++at_;
        return true;
      }
    }
    line_ = start_line;
    fail("a variation '(' is not closed");
    return false;
  }
  // [Name "value"]: the value may hold \" and \\.
  void tag() {
    begin();
    const std::size_t tag_line = line_;
    ++at_;
    std::size_t i = at_;
    while (i < text_.size() && is_space(text_[i]) && text_[i] != '\n') ++i;
    const std::size_t name_start = i;
    while (i < text_.size() && !is_space(text_[i]) && text_[i] != '"' && text_[i] != ']') ++i;
    std::string name(text_.substr(name_start, i - name_start));
    while (i < text_.size() && is_space(text_[i]) && text_[i] != '\n') ++i;
    std::string value;
    bool quoted = false;
    if (i < text_.size() && text_[i] == '"') {
      for (++i; i < text_.size() && text_[i] != '\n'; ++i) {
        if (text_[i] == '\\' && i + 1 < text_.size() && (text_[i + 1] == '"' || text_[i + 1] == '\\')) {
          value += text_[++i];
        } else if (text_[i] == '"') {
          quoted = true;
          ++i;
          break;
        } else {
          value += text_[i];
        }
      }
    }
    while (i < text_.size() && is_space(text_[i]) && text_[i] != '\n') ++i;
    if (name.empty() || !quoted || i >= text_.size() || text_[i] != ']') {
      if (game_.error.empty())
        game_.error = "line " + std::to_string(tag_line) + ": a tag is not [Name \"value\"]";
      skip_line();  // the rest of the line
      return;
    }
    at_ = i + 1;
    game_.tags.emplace_back(std::move(name), std::move(value));
  }
  // A move number, a NAG, a result or a move.
  void token() {
    begin();
    std::size_t end = at_;
    while (end < text_.size() && !is_space(text_[end]) && text_[end] != '{' && text_[end] != '(' &&
           text_[end] != ')' && text_[end] != '[' && text_[end] != ';' && text_[end] != '}')
      ++end;
    std::string_view tok = text_.substr(at_, end - at_);
    at_ = end;
    if (tok.front() == '$') return;  // a numeric annotation glyph
    if (is_result(tok)) {
      game_.result = std::string(tok);
      finish();
      return;
    }
    // "12." or "12..." (a move number), also glued to the move: "12.c3-d4".
    std::size_t i = 0;
    while (i < tok.size() && std::isdigit(static_cast<unsigned char>(tok[i]))) ++i;
    if (i > 0 && i < tok.size() && tok[i] == '.') {
      while (i < tok.size() && tok[i] == '.') ++i;
      tok.remove_prefix(i);
    }
    while (!tok.empty() && (tok.back() == '!' || tok.back() == '?')) tok.remove_suffix(1);
    if (tok.empty() || tok.find_first_not_of("0123456789") == std::string_view::npos) return;  // "12": a bare number
    game_has_moves_ = true;
    game_.moves.emplace_back(tok);
    game_.move_lines.push_back(line_);
  }

  std::string_view text_;
  std::size_t at_ = 0, line_ = 1;
  bool open_ = false, game_has_moves_ = false;
  PdnGame game_;
  std::vector<PdnGame> out_;
};

}  // namespace

std::string PdnGame::tag(std::string_view name) const {
  for (const auto& [k, v] : tags)
    if (equal_ci(k, name)) return v;
  return "";
}

bool PdnGame::has_tag(std::string_view name) const {
  for (const auto& [k, v] : tags)
    if (equal_ci(k, name)) return true;
  return false;
}

std::vector<PdnGame> read_pdn(std::string_view text) { return Reader(text).games(); }

}  // namespace damka
