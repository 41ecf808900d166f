// The move generator's internals that tests check (movegen.cpp).
#pragma once

#include "damka/movegen.hpp"

namespace damka::rules_detail {

// generate_capture_moves_if_any with the capture search reading r's fields
// at run time, as it does for a Rules value that is not in the variant
// table; the public functions use a search fixed at compile time for each
// variant's rules.  The tests check that both give the same moves.
bool generate_captures_at_run_time(const Rules& r, const Position& p, MoveList& out, MoveMode mode);

}  // namespace damka::rules_detail
