// The value oracle: the one answer to "what is this position worth, given
// the tables".  Probe, verify, the statutes, the in-memory solver and the
// generator's reading of finished tables all ask it; each supplies only how
// it reads a stored entry (a file through a cache, a table in memory).
//
// What is stored and what is derived.  A table stores a value for every
// slot (slots.hpp), but only the entries of *stored* positions are ever
// read: positions where the side to move must capture are *derived* from
// their captures' successors (which have fewer pieces, so the search ends),
// and a side to move without pieces has lost in 0 plies.  A table writer
// may therefore put anything in a derived position's entry (FORMAT.md).
// Likewise a distance file (DTW, DTC) may hold anything for a drawn
// position: a lookup of a file reads the WDL entry first (distance_value
// below).
// Symmetric materials and colour-reversed materials are the lookup's
// business (locate() in slots.hpp maps any position to its slot).
//
//   Value v;
//   auto s = oracle_value(rules, p, Metric::DTW,
//       [&](const Position& q, Value& out) { return my_stored_value(q, out); }, v);
//
// The lookup.  `lookup(q, out)` is called only for stored positions q (both
// sides have pieces, the side to move has no capture), in any orientation;
// it sets `out` to q's value for q's side to move, in the metric asked (a
// WDL answer must have plies == 0), and returns a status whose
// value-initialised state (S{}, e.g. ProbeStatus::Ok == 0) means success.
// Any other status stops the search and is returned unchanged: a missing
// table is whatever the caller calls unknown.
//
// One side to move.  A distance file may store one side to move only
// (TableHeader::stored_side, FORMAT.md 3.5, one side to move); the other side's positions are
// then found like capture positions, by a search: the best of their moves
// (none of which captures), each move's successor valued by the oracle in
// turn.  Readers of such files pass `stores(q)`: whether q's entry is
// stored for q's side to move in the distance file (a reader may also
// answer true for a position it knows to be drawn: the lookup then answers
// the draw), and a lookup told what is asked, `lookup(q, ask, out)` (Ask
// below): the search asks for WDL values too (the WDL table stores both
// sides), to read no more distances than the answer needs: an unstored
// position's own WDL first (a draw is answered so), then for a win the WDL
// of every successor and the distance of only those lost for their side to
// move (the best move of a win is one of them), stopping at a win in 1; a
// loss reads every successor's distance.  The values are those of the search
// over every move (tables that disagree on who wins, where a win has no
// lost successor, get that search).  The search ends: a successor of an
// unstored position is stored unless the move promotes (a material with
// fewer men) or it must capture (fewer pieces).
//
// Values known outright.  A reader that holds some materials whole in
// memory with their capture positions' values filled in (the generator's
// resident tables) passes `known(q, ask, out)`: true, with out set as a
// lookup's, for a q of such a material, which is then neither searched nor
// looked up (its captures are not generated); false otherwise.  It is asked
// about the successors the search reaches, not about the position given
// (whose caller knows whether it holds it).
//
// Cost.  A stored position: one generate_capture_moves_if_any() (about a
// has_capture() where it has none) and one lookup.  A capture
// position: its captures' successors, recursively (WDL stops at the first
// winning capture); captures in a row remove a piece each, so the depth is
// at most the number of pieces; in DTC a capture position costs its WDL
// search (capture_dtc).  A position a one-side file leaves out:
// one WDL lookup and generate_moves(); a win adds a WDL value per move and
// a distance per winning move, a loss a distance per move.
// Thread-safety: as the lookup's; the move lists used by the search are per
// thread.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>

#include "damka/movegen.hpp"
#include "damka/position.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka {

// The value of a move for its mover, given the value of the position it
// leads to for that position's side to move (the successor-to-mover
// conversion).  For DTC, `conversion` says whether the move captures or
// promotes (the count starts again).
constexpr Value move_value(Value successor, Metric metric, bool conversion) {
  const Wdl w = successor.wdl == Wdl::Win ? Wdl::Loss : successor.wdl == Wdl::Loss ? Wdl::Win : Wdl::Draw;
  if (w == Wdl::Draw) return Value::draw();
  if (metric == Metric::WDL) return {w, 0};
  const int d = (metric == Metric::DTC && conversion) ? 1 : successor.plies + 1;
  return {w, static_cast<std::uint16_t>(d)};
}

// Orders values best first for the side choosing: wins by fewer plies, then
// draws, then losses by more plies.  True when a is strictly better than b.
constexpr bool better_value(Value a, Value b) {
  if (a.wdl != b.wdl) return static_cast<int>(a.wdl) > static_cast<int>(b.wdl);
  if (a.wdl == Wdl::Win) return a.plies < b.plies;
  if (a.wdl == Wdl::Loss) return a.plies > b.plies;
  return false;
}

// A stored position's value in a distance metric (DTW or DTC) from its two
// entries: its WDL entry's code and its distance entry's code.  A drawn
// position's distance entry is don't care on disk (FORMAT.md 3.5), so the
// WDL entry says whether it is drawn; otherwise the distance entry holds
// the value.  False when the two disagree on who wins (damaged or
// mismatched files); `out` is then the distance entry's value.  Every
// reader of distance files asks this (probe, the generator's successor
// reader, load_solved_table, count_codes).
constexpr bool distance_value(std::uint16_t wdl_code, std::uint16_t distance_code, Value& out) {
  const Wdl w = Value::decode(wdl_code).wdl;
  if (w == Wdl::Draw) {
    out = Value::draw();
    return true;
  }
  out = Value::decode(distance_code);
  return out.wdl == w;
}

// The DTC of a capture position whose WDL is w: every move captures and a
// capture starts the count again, so each non-drawn move is worth 1 ply
// (move_value) and the value is w in 1 ply, or a draw.  A capture
// position's DTC needs its WDL only.
constexpr Value capture_dtc(Wdl w) {
  return w == Wdl::Draw ? Value::draw() : Value{w, 1};
}
static_assert(capture_dtc(Wdl::Win) == move_value(Value::loss(5), Metric::DTC, true));
static_assert(capture_dtc(Wdl::Loss) == move_value(Value::win(0), Metric::DTC, true));

// Whether a table entry of p is derived ("don't care" on disk): its side to
// move must capture.  p must have pieces on both sides.  Cost: one
// has_capture().
inline bool is_derived(const Rules& rules, const Position& p) { return has_capture(rules, p); }

// One ply of the search where the successors' values are at hand already
// resolved (capture positions among them: a table held whole whose derived
// entries this oracle filled): the WDL of p, which must capture, its
// captures in `moves` (generate_capture_moves; not empty).  `resolved(q,
// out)` sets out to the WDL of successor q for q's side to move (q's side
// to move has pieces; one without is lost and not asked) and returns a
// status as a lookup's (S{}: success; any other stops and is returned).
// The best capture as the search values it (move_value, better_value),
// stopping at the first winning one.  Cost: apply() and a resolved() per
// capture up to the first win.  Thread-safety: as resolved's.
template <class Resolved>
auto capture_wdl(const Position& p, const MoveList& moves, Resolved&& resolved, Value& v) -> decltype(resolved(p, v)) {
  using S = decltype(resolved(p, v));
  assert(!moves.empty());
  Value best = Value::loss(0);
  for (const Move& m : moves) {
    const Position q = apply(p, m);
    Value sv = Value::loss(0);
    if (q.pieces(q.side_to_move) != 0)
      if (S s = resolved(q, sv); s != S{}) return s;
    const Value mv = move_value(sv.wdl_only(), Metric::WDL, true);
    if (better_value(mv, best)) best = mv;
    if (best.wdl == Wdl::Win) break;
  }
  v = best;
  return S{};
}

// What the search asks a lookup of the one-side form of oracle_value (see
// above): q's value in the metric searched, its WDL alone (plies 0), or its
// value in the metric when q is lost for its side to move and its WDL alone
// otherwise (a reader reads the WDL entry, then the distance only for a
// loss).
enum class Ask : std::uint8_t { Value, Wdl, IfLost };

namespace oracle_detail {
// Captures in a row remove a piece each and a search over an unstored
// side's moves is followed by a stored position unless its move promotes or
// leads to a capture: 24 pieces bound the depth by 2 * (24 + 24) + 2.
constexpr int kMaxDepth = 100;
// This thread's move list for a search depth (one per depth: the search
// recurses while iterating).
inline MoveList& moves_at(int depth) {
  thread_local std::array<MoveList, kMaxDepth> lists;
  return lists[static_cast<std::size_t>(depth)];
}

template <class Lookup, class Stores, class Known>
auto search(const Rules& rules, const Position& p, Metric metric, Ask ask, Lookup& lookup, Stores& stores,
            Known& known, Value& v, int depth) -> decltype(lookup(p, ask, v));

// search() once p's captures are in `moves` (moves_at(depth); `capture`:
// whether it has any).  Asks about p itself again (its WDL first) pass the
// same list: it is not generated twice.
template <class Lookup, class Stores, class Known>
auto search_generated(const Rules& rules, const Position& p, bool capture, MoveList& moves, Metric metric, Ask ask,
                      Lookup& lookup, Stores& stores, Known& known, Value& v, int depth)
    -> decltype(lookup(p, ask, v)) {
  using S = decltype(lookup(p, ask, v));
  // A WDL table stores both sides to move (FORMAT.md 3.5): only a distance
  // file may leave p out.
  if (!capture && (ask == Ask::Wdl || metric == Metric::WDL || stores(p))) return lookup(p, ask, v);
  bool lost = false;  // known to be lost
  if (ask == Ask::IfLost) {  // searched: its WDL first (on the same move list, which it leaves as it is)
    if (S s = search_generated(rules, p, capture, moves, metric, Ask::Wdl, lookup, stores, known, v, depth);
        s != S{} || v.wdl != Wdl::Loss)
      return s;
    ask = Ask::Value;
    lost = true;
  }
  const Metric m = ask == Ask::Wdl ? Metric::WDL : metric;  // this search's metric
  if (capture && m == Metric::DTC) {  // its WDL alone (capture_dtc): a winning capture ends the search
    if (!lost)
      if (S s = search_generated(rules, p, capture, moves, metric, Ask::Wdl, lookup, stores, known, v, depth); s != S{})
        return s;
    v = capture_dtc(lost ? Wdl::Loss : v.wdl);
    return S{};
  }
  // The best of the side to move's moves: its captures (it must capture),
  // or every move of a side its one-side distance file does not store.  A
  // capture or a promotion starts the DTC count again.
  if (!capture) generate_moves(rules, p, moves);
  // An unstored position (a distance metric): its own WDL is stored (the
  // WDL table keeps both sides).  A draw needs no move; a win's best move is
  // one to a successor lost for its side to move, so only those successors'
  // distances are read; a loss reads them all.
  Wdl own = Wdl::Loss;
  const bool unstored = !capture;
  if (unstored && !lost) {
    Value w;
    if (S s = lookup(p, Ask::Wdl, w); s != S{}) return s;
    if (w.wdl == Wdl::Draw) {
      v = Value::draw();
      return S{};
    }
    own = w.wdl;
  }
  Value best = Value::loss(0);
  bool any = false;
  for (int pass = 0; pass < 2; ++pass) {
    // Pass 0 prunes (a win of an unstored position); pass 1 (tables that
    // disagree: no successor is lost) values every move, as without pruning.
    const bool prune = pass == 0 && unstored && own == Wdl::Win;
    for (std::size_t i = 0; i < moves.size(); ++i) {
      const bool conversion = capture || moves[i].promotes;
      Value sv;
      if (S s = search(rules, apply(p, moves[i]), metric, prune ? Ask::IfLost : ask, lookup, stores, known, sv,
                       depth + 1);
          s != S{})
        return s;
      if (prune && sv.wdl != Wdl::Loss) continue;  // not a winning move: its distance was not read
      const Value mv = move_value(sv, m, conversion);
      if (!any || better_value(mv, best)) best = mv;
      any = true;
      if (capture && best.wdl == Wdl::Win && m != Metric::DTW) break;  // WDL and DTC: a winning capture is win in 1
      if (prune && mv.wdl == Wdl::Win && mv.plies == 1) break;  // no move wins sooner (DTC: a winning promotion)
    }
    if (any || !prune) break;
  }
  v = best;
  return S{};
}

template <class Lookup, class Stores, class Known>
auto search(const Rules& rules, const Position& p, Metric metric, Ask ask, Lookup& lookup, Stores& stores,
            Known& known, Value& v, int depth) -> decltype(lookup(p, ask, v)) {
  using S = decltype(lookup(p, ask, v));
  assert(depth < kMaxDepth);
  if (p.pieces(p.side_to_move) == 0) {
    v = ask == Ask::Wdl ? Value::loss(0).wdl_only() : Value::loss(0);
    return S{};
  }
  if (depth > 0 && known(p, ask, v)) return S{};  // the caller asks about p itself first
  // The side to move's captures, if it has any (it must capture then).
  MoveList& moves = moves_at(depth);
  const bool capture = generate_capture_moves_if_any(rules, p, moves);
  return search_generated(rules, p, capture, moves, metric, ask, lookup, stores, known, v, depth);
}

// No value known outright.
struct KnownNone {
  constexpr bool operator()(const Position&, Ask, Value&) const { return false; }
};
}  // namespace oracle_detail

// The value of p for its side to move in `metric`, from stored entries
// read through `lookup` (see above).  p: a valid position whose side not to
// move has pieces (the side to move may have none: lost in 0 plies).
template <class Lookup>
auto oracle_value(const Rules& rules, const Position& p, Metric metric, Lookup&& lookup, Value& v)
    -> decltype(lookup(p, v)) {
  auto every = [](const Position&) { return true; };
  // Every position stored: the search asks for values, and for WDL values
  // only below a capture position searched in DTC (capture_dtc).
  auto values = [&](const Position& q, Ask ask, Value& out) {
    assert(ask != Ask::IfLost);  // every position stored: no pruned search
    auto s = lookup(q, out);
    if (ask == Ask::Wdl) out = out.wdl_only();  // a capture position's DTC (capture_dtc)
    return s;
  };
  oracle_detail::KnownNone none;
  return oracle_detail::search(rules, p, metric, Ask::Value, values, every, none, v, 0);
}

// The same for distance files that may store one side to move only:
// `stores(q)` says whether q's entry is stored for its side to move (see
// above); where it is not, the oracle searches q's moves.  The lookup is
// told what is asked: `lookup(q, ask, out)` (Ask above).
template <class Lookup, class Stores>
auto oracle_value(const Rules& rules, const Position& p, Metric metric, Lookup&& lookup, Stores&& stores, Value& v)
    -> decltype(lookup(p, Ask::Value, v)) {
  oracle_detail::KnownNone none;
  return oracle_detail::search(rules, p, metric, Ask::Value, lookup, stores, none, v, 0);
}

// The same, with values known outright (`known`, see above): the
// generator's successor reads, whose resident tables hold every position's
// value.
template <class Lookup, class Stores, class Known>
auto oracle_value(const Rules& rules, const Position& p, Metric metric, Lookup&& lookup, Stores&& stores,
                  Known&& known, Value& v) -> decltype(lookup(p, Ask::Value, v)) {
  return oracle_detail::search(rules, p, metric, Ask::Value, lookup, stores, known, v, 0);
}

}  // namespace damka
