// Property tests (rapidcheck) of the move generator over random positions of
// every variant: positions reached by random play from the start, and random
// sparse placements with kings (endgame-like).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>

#include "damka/capture_stream.hpp"
#include "damka/movegen.hpp"
#include "damka/notation.hpp"
#include "movegen_detail.hpp"

namespace damka {
namespace {

// A random position: random play from the start, or a random placement.
Position random_position(const Rules& r) {
  if (*rc::gen::inRange(0, 2)) {
    Position p = start_position(r);
    const int plies = *rc::gen::inRange(0, 60);
    MoveList moves;
    for (int i = 0; i < plies; ++i) {
      generate_moves(r, p, moves);
      if (moves.empty()) break;
      p = apply(p, moves[*rc::gen::inRange<std::size_t>(0, moves.size())]);
    }
    return p;
  }
  Position p;
  const int n = *rc::gen::inRange(1, 13);
  Bitboard used = 0;
  for (int i = 0; i < n; ++i) {
    const int s = *rc::gen::inRange(0, 32);
    if (used & bit(s)) continue;
    const Color c = *rc::gen::inRange(0, 2) ? Color::White : Color::Black;
    const bool king = (promotion_row(c) & bit(s)) || *rc::gen::inRange(0, 3) == 0;
    used |= bit(s);
    (king ? p.kings : p.men)[idx(c)] |= bit(s);
  }
  p.side_to_move = *rc::gen::inRange(0, 2) ? Color::White : Color::Black;
  return p;
}

const Rules& random_rules() { return rules_of(all_variants()[*rc::gen::inRange<std::size_t>(0, 6)]); }

// A variant's rules, or (one time in three) its capture fields drawn at
// random: mostly a Rules value outside the table (its search then reads the
// fields at run time).
Rules random_capture_rules() {
  Rules r = random_rules();
  if (*rc::gen::inRange(0, 3) == 0) {
    r.men_capture_backward = *rc::gen::inRange(0, 2) != 0;
    r.king_range = *rc::gen::element(KingRange::Flying, KingRange::Short);
    r.king_landing = *rc::gen::element(KingLanding::AnyBeyond, KingLanding::RightBehind);
    r.king_must_land_to_continue = *rc::gen::inRange(0, 2) != 0;
    r.removal = *rc::gen::element(Removal::AtEnd, Removal::Immediate);
    r.capture_choice = *rc::gen::element(CaptureChoice::Free, CaptureChoice::MostPieces, CaptureChoice::MostValue);
    r.capture_promotion = *rc::gen::element(CapturePromotion::ContinueAsKing, CapturePromotion::ContinueAsManElsePromote,
                                            CapturePromotion::PromoteAndStop);
  }
  return r;
}

// board.hpp's popcount (a bit-parallel sum inlined where the target has no
// POPCNT, as in the portable default build) counts as the standard one.
static_assert(popcount(0) == 0 && popcount(~Bitboard{0}) == 32 && popcount(0x80000001u) == 2 &&
              popcount(0x0F0F0F0Fu) == 16);
RC_GTEST_PROP(Board, PopcountCountsAsTheStandardOne, (std::uint32_t b)) {
  RC_ASSERT(popcount(b) == std::popcount(b));
}
TEST(Board, PopcountOfEveryBitAndItsComplement) {
  for (int s = 0; s < kNumSquares; ++s) {
    EXPECT_EQ(popcount(bit(s)), 1);
    EXPECT_EQ(popcount(~bit(s)), 31);
    EXPECT_EQ(popcount(bit(s) - 1), s);
  }
}

// The capture search fixed at compile time for a variant's rules gives the
// moves, in the same order, that the search reading the rules at run time
// gives; for rules of random capture fields too (mostly not in the table:
// there the public functions use the run-time search themselves).
RC_GTEST_PROP(MoveGen, FixedCaptureSearchMatchesTheRunTimeOne, ()) {
  const Rules r = random_capture_rules();
  const Position p = random_position(r);
  const MoveMode mode = *rc::gen::element(MoveMode::Merged, MoveMode::AllPaths);
  MoveList fixed, at_run_time;
  const bool any = generate_capture_moves_if_any(r, p, fixed, mode);
  RC_ASSERT(rules_detail::generate_captures_at_run_time(r, p, at_run_time, mode) == any);
  RC_ASSERT(any == has_capture(r, p));
  RC_ASSERT(fixed.size() == at_run_time.size());
  for (std::size_t i = 0; i < fixed.size(); ++i) {
    const Move &a = fixed[i], &b = at_run_time[i];
    RC_ASSERT(a.same_result(b));
    RC_ASSERT(a.victim_order == b.victim_order);
    RC_ASSERT(a.num_steps == b.num_steps);
    RC_ASSERT(a.path == b.path);
  }
}

// Captures handed over one at a time (capture_stream.hpp) are the listed
// ones in the listed order, up to the one the consumer stops at; for rules
// of random capture fields too (the run-time search streams as well, and a
// majority rule hands over the finished list).
RC_GTEST_PROP(MoveGen, StreamedCapturesAreTheListedOnesUpToTheStop, ()) {
  const Rules r = random_capture_rules();
  const Position p = random_position(r);
  const MoveMode mode = *rc::gen::element(MoveMode::Merged, MoveMode::AllPaths);
  MoveList listed;
  const bool any = generate_capture_moves_if_any(r, p, listed, mode);
  // Stop at move number `stop` (0-based); past the list: never.
  const std::size_t stop = *rc::gen::inRange<std::size_t>(0, listed.size() + 2);
  MoveList given, out;
  const bool streamed = generate_captures_until(
      r, p, out,
      [&](const Move& m) {
        given.push_back(m);
        return given.size() == stop + 1;
      },
      mode);
  RC_ASSERT(streamed == any);
  const std::size_t n = std::min(listed.size(), stop + 1);
  RC_ASSERT(given.size() == n);
  RC_ASSERT(out.size() == n);
  for (std::size_t i = 0; i < n; ++i)
    for (const Move* m : {&given[i], &out[i]}) {
      RC_ASSERT(m->same_result(listed[i]));
      RC_ASSERT(m->victim_order == listed[i].victim_order);
      RC_ASSERT(m->num_steps == listed[i].num_steps);
      RC_ASSERT(m->path == listed[i].path);
    }
}

// A ring capture (the same move by two paths: random positions seldom have
// one) is handed over once when merged, as the list has it once.
TEST(MoveGen, StreamedCapturesMergeARingCapture) {
  // A king in a ring of four men (English numbering; the same squares for
  // Russian's flying king).
  const auto p = parse_fen(rules_of(Variant::English), "W:WK22:B18,19,26,27");
  ASSERT_TRUE(p.ok()) << p.message();
  for (Variant v : {Variant::English, Variant::Russian}) {
    const Rules& r = rules_of(v);
    MoveList merged, paths;
    generate_capture_moves_if_any(r, *p, merged, MoveMode::Merged);
    generate_capture_moves_if_any(r, *p, paths, MoveMode::AllPaths);
    ASSERT_LT(merged.size(), paths.size()) << r.name;
    for (MoveMode mode : {MoveMode::Merged, MoveMode::AllPaths}) {
      const MoveList& listed = mode == MoveMode::Merged ? merged : paths;
      MoveList out;
      std::size_t given = 0;
      ASSERT_TRUE(generate_captures_until(r, *p, out, [&](const Move&) { return ++given > listed.size(); }, mode));
      EXPECT_EQ(given, listed.size()) << r.name;
      ASSERT_EQ(out.size(), listed.size()) << r.name;
      for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i].path, listed[i].path) << r.name << " " << i;
    }
  }
}

RC_GTEST_PROP(MoveGen, CaptureIsTakenWhenOneExists, ()) {
  const Rules& r = random_rules();
  const Position p = random_position(r);
  MoveList moves;
  generate_moves(r, p, moves);
  const bool capture = has_capture(r, p);
  for (const Move& m : moves) RC_ASSERT(m.is_capture() == capture);
  if (capture) RC_ASSERT(!moves.empty());
  RC_ASSERT(count_moves(r, p) == moves.size());
}

RC_GTEST_PROP(MoveGen, NoPieceTakenTwiceAndOneVictimPerJump, ()) {
  const Rules& r = random_rules();
  const Position p = random_position(r);
  MoveList moves;
  generate_moves(r, p, moves, MoveMode::AllPaths);
  const Bitboard theirs = p.pieces(opposite(p.side_to_move));
  for (const Move& m : moves) {
    RC_ASSERT((m.taken & ~theirs) == 0u);
    if (m.is_capture()) RC_ASSERT(popcount(m.taken) == m.num_steps);
    const Position q = apply(p, m);
    RC_ASSERT(q.is_valid());
    RC_ASSERT(q.count() == p.count() - popcount(m.taken));
  }
}

RC_GTEST_PROP(MoveGen, MenMoveForwardUnlessCapturingBackwardIsAllowed, ()) {
  const Rules& r = random_rules();
  const Position p = random_position(r);
  const Color me = p.side_to_move;
  const int forward = me == Color::White ? 1 : -1;
  MoveList moves;
  generate_moves(r, p, moves, MoveMode::AllPaths);
  for (const Move& m : moves) {
    if (!(p.men[idx(me)] & bit(m.from))) continue;
    int prev = m.from;
    for (int i = 0; i < m.num_steps; ++i) {
      const int dr = row_of(m.path[i]) - row_of(prev);
      if (!m.is_capture()) RC_ASSERT(dr == forward);
      else if (!r.men_capture_backward && r.capture_promotion != CapturePromotion::ContinueAsKing)
        RC_ASSERT(dr == 2 * forward);
      prev = m.path[i];
    }
  }
}

RC_GTEST_PROP(MoveGen, MergedModeHasNoDuplicates, ()) {
  const Rules& r = random_rules();
  const Position p = random_position(r);
  MoveList merged, paths;
  generate_moves(r, p, merged, MoveMode::Merged);
  generate_moves(r, p, paths, MoveMode::AllPaths);
  RC_ASSERT(merged.size() <= paths.size());
  for (std::size_t i = 0; i < merged.size(); ++i)
    for (std::size_t j = i + 1; j < merged.size(); ++j) RC_ASSERT(!merged[i].same_result(merged[j]));
  for (const Move& m : paths)
    RC_ASSERT(std::any_of(merged.begin(), merged.end(), [&](const Move& x) { return x.same_result(m); }));
}

// king_step_targets (the generator's quiet king moves, branch-free) gives
// every king of the side to move the targets generate_moves lists for it
// where the position has no capture, and for any occupancy the squares a
// walk along each diagonal reaches before the first piece (one step for a
// short king).
RC_GTEST_PROP(MoveGen, KingStepTargetsAreTheKingsQuietMoves, ()) {
  const Rules& r = random_rules();
  const Position p = random_position(r);
  const Bitboard occ = p.occupied();
  for (int s = 0; s < kNumSquares; ++s) {
    Bitboard want = 0;
    for (Dir d : {UpLeft, UpRight, DownLeft, DownRight}) {
      Bitboard along = 0;
      for (int t = step(s, d); t >= 0 && !(occ & bit(t)); t = step(t, d)) {
        along |= bit(t);
        if (r.king_range == KingRange::Short) break;
      }
      RC_ASSERT(king_targets_along(r, s, d, occ & ~bit(s)) == along);
      want |= along;
    }
    RC_ASSERT(king_step_targets(r, s, occ & ~bit(s)) == want);
  }
  if (has_capture(r, p)) return;
  MoveList moves;
  generate_moves(r, p, moves);
  for (Bitboard b = p.kings[idx(p.side_to_move)]; b; b &= b - 1) {
    Bitboard listed = 0;
    for (const Move& m : moves)
      if (m.from == lsb(b)) listed |= bit(m.to);
    RC_ASSERT(king_step_targets(r, lsb(b), occ) == listed);
  }
}

RC_GTEST_PROP(Notation, FenAndMovesRoundTrip, ()) {
  const Rules& r = random_rules();
  const Position p = random_position(r);
  auto q = parse_fen(r, to_fen(r, p));
  RC_ASSERT(q.ok());
  RC_ASSERT(*q == p);
  MoveList moves;
  generate_moves(r, p, moves);
  for (const Move& m : moves) {
    auto back = parse_move(r, p, move_to_string(r, p, m));
    RC_ASSERT(back.ok());
    RC_ASSERT(back->same_result(m));
  }
}

RC_GTEST_PROP(Position, FlipIsAnInvolutionAndPreservesMoveCounts, ()) {
  const Rules& r = random_rules();
  const Position p = random_position(r);
  RC_ASSERT(p.flipped().flipped() == p);
  RC_ASSERT(count_moves(r, p) == count_moves(r, p.flipped()));
}

}  // namespace
}  // namespace damka
