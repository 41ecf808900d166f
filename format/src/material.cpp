// Material names, parsing and enumeration (see material.hpp).
#include "damka/material.hpp"

#include <cctype>

namespace damka {
namespace {

void append_side(std::string& out, int kings, int men) {
  if (kings == 0 && men == 0) {
    out += '0';
    return;
  }
  if (kings > 0) out += std::to_string(kings) + 'K';
  if (men > 0) out += std::to_string(men) + 'M';
}

// Parses one side ("0", "3K", "2M", "1K2M", "2M1K"), lower-cased already.
bool parse_side(std::string_view s, int& kings, int& men) {
  kings = men = 0;
  if (s == "0") return true;
  if (s.empty()) return false;
  bool seen_k = false, seen_m = false;
  std::size_t i = 0;
  while (i < s.size()) {
    int n = 0, digits = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      n = n * 10 + (s[i] - '0');
      if (++digits > 2) return false;
      ++i;
    }
    if (digits == 0 || n == 0 || i == s.size()) return false;
    const char kind = s[i++];
    if (kind == 'k' && !seen_k) {
      seen_k = true;
      kings = n;
    } else if (kind == 'm' && !seen_m) {
      seen_m = true;
      men = n;
    } else {
      return false;
    }
  }
  return true;
}

std::string describe_side(const char* colour, int kings, int men) {
  const auto count = [&](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + colour + " " + (n == 1 ? one : many);
  };
  if (kings == 0 && men == 0) return std::string("no ") + colour + " pieces";
  if (men == 0) return count(kings, "king", "kings");
  if (kings == 0) return count(men, "man", "men");
  return count(kings, "king", "kings") + " and " + count(men, "man", "men");
}

}  // namespace

std::string Material::describe() const {
  return describe_side(color_word(Color::White), wk, wm) + " vs " + describe_side(color_word(Color::Black), bk, bm);
}

std::string Material::name() const {
  std::string out;
  append_side(out, wk, wm);
  out += 'v';
  append_side(out, bk, bm);
  return out;
}

Expected<Material> Material::parse(std::string_view text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto bad = [&](std::string_view why) {
    return Error("bad material \"" + std::string(text) + "\": " + std::string(why) +
                 " (expected e.g. \"3Kv1K\", \"1K1Mv2M\" or \"2Kv0\")");
  };
  const std::size_t v = s.find('v');
  if (v == std::string::npos || s.find('v', v + 1) != std::string::npos)
    return bad("needs exactly one 'v' between the white and the black side");
  Material m;
  if (!parse_side(std::string_view(s).substr(0, v), m.wk, m.wm)) return bad("cannot read the white side");
  if (!parse_side(std::string_view(s).substr(v + 1), m.bk, m.bm)) return bad("cannot read the black side");
  if (m.pieces() == 0) return bad("no pieces");
  if (!m.is_valid()) return bad("too many pieces for the board");
  return m;
}

std::vector<Material> materials_with(int pieces, bool both_sides_present) {
  std::vector<Material> out;
  for (int wm = 0; wm <= pieces; ++wm)
    for (int wk = 0; wm + wk <= pieces; ++wk)
      for (int bm = 0; wm + wk + bm <= pieces; ++bm) {
        const Material m{wm, wk, bm, pieces - wm - wk - bm};
        if (!m.is_valid()) continue;
        if (both_sides_present && (m.white() == 0 || m.black() == 0)) continue;
        out.push_back(m);
      }
  return out;  // generated in lexicographic (wm, wk, bm, bk) order
}

}  // namespace damka
