// The values a table stores, shared by generator, format and probe.
//
// Every metric stores one 16-bit code per position (before packing):
//   0           draw
//   2*d + 1     win for the side to move in d plies
//   2*d + 2     loss for the side to move in d plies
// WDL tables store d = 0 (codes 0, 1, 2).  DTW counts plies until the game
// ends; DTC plies until the next capture or promotion (see generator docs).
#pragma once

#include <cassert>
#include <cstdint>
#include <string_view>

namespace damka {

enum class Metric : std::uint8_t { WDL = 0, DTW = 1, DTC = 2 };
constexpr std::string_view metric_name(Metric m) {
  return m == Metric::WDL ? "wdl" : m == Metric::DTW ? "dtw" : "dtc";
}

enum class Wdl : std::int8_t { Loss = -1, Draw = 0, Win = 1 };
// "win", "draw" or "loss" (for the side the value belongs to); words.hpp
// builds the longer texts and the JSON from it.
constexpr const char* result_word(Wdl w) { return w == Wdl::Win ? "win" : w == Wdl::Loss ? "loss" : "draw"; }

struct Value {
  Wdl wdl = Wdl::Draw;
  std::uint16_t plies = 0;  // distance; 0 for draws

  static constexpr Value draw() { return {Wdl::Draw, 0}; }
  static constexpr Value win(int d) { return {Wdl::Win, static_cast<std::uint16_t>(d)}; }
  static constexpr Value loss(int d) { return {Wdl::Loss, static_cast<std::uint16_t>(d)}; }

  constexpr std::uint16_t encode() const {
    if (wdl == Wdl::Draw) return 0;
    assert(plies < 32767);
    return static_cast<std::uint16_t>(2 * plies + (wdl == Wdl::Win ? 1 : 2));
  }
  static constexpr Value decode(std::uint16_t code) {
    if (code == 0) return draw();
    const int d = (code - 1) / 2;
    return (code & 1) ? win(d) : loss(d);
  }
  // The same value with its distance dropped (what a WDL table stores).
  constexpr Value wdl_only() const { return {wdl, 0}; }
  // decode(code).wdl_only().encode(), without branches (a loop of it
  // vectorises): 0 stays 0, an odd code (a win) is 1, an even one 2.
  static constexpr std::uint16_t wdl_only_code(std::uint16_t code) {
    return static_cast<std::uint16_t>((code != 0) * (2 - (code & 1)));
  }
  friend constexpr bool operator==(const Value&, const Value&) = default;
};

static_assert(Value::decode(Value::win(7).encode()) == Value::win(7));
static_assert(Value::decode(Value::loss(0).encode()) == Value::loss(0));
static_assert(Value::win(0).encode() == 1 && Value::loss(0).encode() == 2);
static_assert(Value::wdl_only_code(Value::win(9).encode()) == Value::win(0).encode() &&
              Value::wdl_only_code(Value::loss(4).encode()) == Value::loss(0).encode() &&
              Value::wdl_only_code(Value::draw().encode()) == Value::draw().encode());

}  // namespace damka
