// The captures of a position handed over one at a time, for callers that can
// stop early (the generator's WDL build: a winning capture settles a
// capture position).  The same moves in the same order as
// generate_capture_moves_if_any (movegen.hpp), up to the stop.
#pragma once

#include <type_traits>

#include "damka/movegen.hpp"

namespace damka {

namespace rules_detail {
// A consumer of captures: fn(context, move) returns true to stop.
struct CaptureStop {
  bool (*fn)(void* context, const Move& m);
  void* context;
};
bool captures_until(const Rules& r, const Position& p, MoveList& out, MoveMode mode, const CaptureStop& stop);
}  // namespace rules_detail

// Whether the side to move has a capture (and therefore must capture);
// where it has, its captures, in generate_capture_moves_if_any's order
// (identical ones merged as `mode` says), are given to done(move) one at a
// time until done returns true.  `out` (cleared first) then holds the moves
// given, the last one the move done stopped at.
// Cost: under free capture choice the search ends at the stop, so a caller
// that stops at the first capture that suits it skips the rest of the
// search; under a majority rule every capture is searched first (which
// ones count is known only then).  Where p has no capture, about what
// has_capture costs.  done must not change `out`.  Thread-safe (no shared
// state).
template <class F>
bool generate_captures_until(const Rules& r, const Position& p, MoveList& out, F&& done,
                             MoveMode mode = MoveMode::Merged) {
  using Done = std::remove_reference_t<F>;
  const rules_detail::CaptureStop stop{
      [](void* context, const Move& m) -> bool { return (*static_cast<Done*>(context))(m); },
      const_cast<void*>(static_cast<const void*>(&done))};
  return rules_detail::captures_until(r, p, out, mode, stop);
}

}  // namespace damka
