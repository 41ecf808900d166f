// The single move generator.  Every variant difference is read from Rules:
//  - quiet moves: men one step forward; kings one step (short) or any distance
//    along a free diagonal (flying);
//  - captures: a depth-first search over jump sequences from each piece,
//    honouring removal timing (Turkish strike), king landing, promotion
//    during a capture, the capture-choice rule, and merging of identical moves.
#include "damka/movegen.hpp"
#include "damka/capture_stream.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>

#include "movegen_detail.hpp"
#include "rules_table.hpp"

namespace damka {
namespace {

constexpr Dir kUp[2] = {UpLeft, UpRight};
constexpr Dir kDown[2] = {DownLeft, DownRight};
constexpr Dir kAll[4] = {UpLeft, UpRight, DownLeft, DownRight};

constexpr std::span<const Dir> forward_dirs(Color c) {
  return c == Color::White ? std::span<const Dir>(kUp) : std::span<const Dir>(kDown);
}

// Whether a direction walks toward higher square numbers.
constexpr bool is_up(Dir d) { return d == UpLeft || d == UpRight; }

// The first occupied square along d from s (exclusive), or -1.
inline int first_blocker(int s, Dir d, Bitboard occ) {
  const Bitboard hits = ray(s, d) & occ;
  if (!hits) return -1;
  return is_up(d) ? lsb(hits) : 31 - std::countl_zero(hits);
}

// Bitboard shifts of a set of men one step in each direction (see board.hpp
// for the layout: on even rows up-left is +3 (not on file a), up-right +4; on
// odd rows up-left is +4, up-right +5 (not on file h); down mirrors that).
constexpr Bitboard kEvenRows = 0x0F0F0F0Fu;
constexpr Bitboard kOddRows = 0xF0F0F0F0u;
constexpr Bitboard kColumn0 = 0x11111111u;  // s % 4 == 0
constexpr Bitboard kColumn3 = 0x88888888u;  // s % 4 == 3
inline Bitboard shift(Bitboard b, Dir d) {
  switch (d) {
    case UpLeft: return ((b & kEvenRows & ~kColumn0) << 3) | ((b & kOddRows) << 4);
    case UpRight: return ((b & kEvenRows) << 4) | ((b & kOddRows & ~kColumn3) << 5);
    case DownLeft: return ((b & kEvenRows & ~kColumn0) >> 5) | ((b & kOddRows) >> 4);
    case DownRight: return ((b & kEvenRows) >> 4) | ((b & kOddRows & ~kColumn3) >> 3);
  }
  return 0;
}

// The pieces of `opp` that a jump along d could take: those with an empty
// square right behind them along d.  A first jump along d needs one.
inline Bitboard victims_along(Bitboard opp, Bitboard empty, Dir d) { return opp & shift(empty, reverse(d)); }

// What a node of a capture search needs to know about the board: the
// occupied squares (taken pieces stay there until the end under the Turkish
// strike) and, per direction, the pieces that can still be taken along it
// (capturable, with an empty square right behind them).  Found once per
// taken set, so that a piece's jumps from any square are bit tests.
struct Victims {
  Bitboard occ;
  std::array<Bitboard, kNumDirs> along;
};

// The square of the first piece along d from s (exclusive), plus one; 0 if
// there is none.  Branch-free.
inline unsigned blocker_plus_one(int s, Dir d, Bitboard occ) {
  const std::uint64_t hits = ray(s, d) & occ;
  if (is_up(d)) return static_cast<unsigned>(std::countr_zero(hits | (std::uint64_t{1} << 32))) + 1;  // 33: none
  return 63u - static_cast<unsigned>(std::countl_zero((hits << 1) | 1));                             // 0: none
}

// A short jump from s along d: the square jumped over and the landing
// square, as bits (both 0 where the board ends).
struct ShortJumps {
  std::array<std::array<Bitboard, kNumDirs>, kNumSquares> over{}, land{};
  constexpr ShortJumps() {
    for (int s = 0; s < kNumSquares; ++s)
      for (Dir d : kAll) {
        const int v = step(s, d);
        const int l = v < 0 ? -1 : step(v, d);
        if (l >= 0) {
          over[s][d] = bit(v);
          land[s][d] = bit(l);
        }
      }
  }
};
constexpr ShortJumps kShortJumps{};

// The fields of Rules that a capture search reads.
struct CaptureShape {
  bool men_capture_backward;
  KingRange king_range;
  KingLanding king_landing;
  bool king_must_land_to_continue;
  Removal removal;
  CapturePromotion capture_promotion;
  friend constexpr bool operator==(const CaptureShape&, const CaptureShape&) = default;
};
constexpr CaptureShape capture_shape(const Rules& r) {
  return {r.men_capture_backward, r.king_range, r.king_landing, r.king_must_land_to_continue,
          r.removal, r.capture_promotion};
}

// How the search reads its shape: fixed at compile time (one instantiation
// per distinct shape of the variant table, so that a variant's search tests
// no rule it does not have: Russian, Brazilian/Filipino/Mozambique, Thai,
// English), or from the Rules at run time (a Rules value not in the table).
// The run-time search takes no short cut that its rules allow
// (CaptureSearch::landing_dirs): the property tests hold the fixed searches
// to it.
template <CaptureShape S>
struct FixedShape {
  static constexpr bool kShortCuts = true;
  explicit constexpr FixedShape(const Rules&) {}
  static constexpr CaptureShape get() { return S; }
};
struct RuntimeShape {
  static constexpr bool kShortCuts = false;
  explicit constexpr RuntimeShape(const Rules& r) : s(capture_shape(r)) {}
  constexpr CaptureShape get() const { return s; }
  CaptureShape s;
};

// Whether two captures count as one move in `mode` (generate_captures_as).
inline bool same_move(const Move& a, const Move& b, MoveMode mode) {
  return a.same_result(b) && (mode == MoveMode::Merged || a.victim_order == b.victim_order);
}

// The capture search of one piece, its rules read through Shape.  Stream:
// each new move is handed to `stop` as it is found (a repeat of an earlier
// move of the same piece dropped: only the same piece can make the same
// move), and the search ends when it says so (free capture choice only).
template <class Shape, bool Stream = false>
class CaptureSearch {
 public:
  // `root`: the victims of the position itself (nothing taken yet).
  CaptureSearch(Shape shape, const Position& p, const Victims& root, MoveList& out,
                const rules_detail::CaptureStop* stop = nullptr, MoveMode mode = MoveMode::Merged)
      : k_(shape),
        me_(p.side_to_move),
        opp_(p.pieces(opposite(p.side_to_move))),
        occ_all_(p.occupied()),
        root_(root),
        out_(out),
        stop_(stop),
        mode_(mode) {}

  // Stream: whether the consumer said stop.
  bool stopped() const { return stopped_; }

  void run(int from, bool king) {
    first_of_piece_ = out_.size();
    started_king_ = king;
    occ0_ = occ_all_ & ~bit(from);  // the start square counts as empty
    behind_ready_ = false;
    cur_.from = static_cast<std::uint8_t>(from);
    cur_.num_steps = 0;
    cur_.victim_order = 0;
    // A first jump never lands on or passes the start square, so the
    // position's own victims (start square occupied) decide it.
    search(from, king, 0, king && flying() ? flying_dirs(from, root_) : short_dirs(from, king, 0));
  }

 private:
  // The occupied squares once `taken` are taken (still there until the end
  // under the Turkish strike).
  Bitboard occupancy(Bitboard taken) const {
    return k_.get().removal == Removal::AtEnd ? occ0_ : (occ0_ & ~taken);
  }
  // The victims once `taken` are taken.
  Victims victims(Bitboard taken) {
    Victims v;
    const Bitboard capturable = opp_ & ~taken;
    if (k_.get().removal == Removal::AtEnd) {
      if (!behind_ready_) {  // on the first need: most men's captures never ask
        behind_ = {shift(~occ0_, DownRight), shift(~occ0_, DownLeft), shift(~occ0_, UpRight), shift(~occ0_, UpLeft)};
        behind_ready_ = true;
      }
      v.occ = occ0_;
      for (Dir d : kAll) v.along[d] = capturable & behind_[d];
    } else {
      v.occ = occupancy(taken);
      for (Dir d : kAll) v.along[d] = capturable & shift(~v.occ, reverse(d));
    }
    return v;
  }
  std::span<const Dir> man_dirs() const {
    return k_.get().men_capture_backward ? std::span<const Dir>(kAll) : forward_dirs(me_);
  }

  // Bit d if a flying king on s has a jump along d.
  static unsigned flying_dir(int s, Dir d, const Victims& v) {
    return static_cast<unsigned>(((std::uint64_t{v.along[d]} << 1) >> blocker_plus_one(s, d, v.occ)) & 1) << d;
  }
  // The directions (bit d) in which a flying king on s has a jump.
  static unsigned flying_dirs(int s, const Victims& v) {
    return flying_dir(s, UpLeft, v) | flying_dir(s, UpRight, v) | flying_dir(s, DownLeft, v) |
           flying_dir(s, DownRight, v);
  }
  // flying_dirs() of each landing lands[0..n) of a jump along d, whose last
  // landing is followed by square `after` (occupied; -1: the board's edge).
  // Under the Turkish strike the victim stays on the board, so from every
  // landing the first piece back along d is the victim (taken: no jump) and
  // the first piece on along d is `after`: only the two crossing directions
  // are looked up per landing.
  void landing_dirs(Dir d, const int* lands, int n, int after, const Victims& v, unsigned* further) const {
    if (!Shape::kShortCuts || k_.get().removal != Removal::AtEnd) {
      for (int i = 0; i < n; ++i) further[i] = flying_dirs(lands[i], v);
      return;
    }
    const unsigned on = after >= 0 ? ((v.along[d] >> after) & 1u) << d : 0u;
    if (d == UpLeft || d == DownRight) {
      for (int i = 0; i < n; ++i) further[i] = on | flying_dir(lands[i], UpRight, v) | flying_dir(lands[i], DownLeft, v);
    } else {
      for (int i = 0; i < n; ++i) further[i] = on | flying_dir(lands[i], UpLeft, v) | flying_dir(lands[i], DownRight, v);
    }
  }
  // The directions in which a man or a short king on s has a jump.
  unsigned short_dirs(int s, bool king, Bitboard taken) const {
    const Bitboard occ = occupancy(taken);
    const Bitboard capturable = opp_ & ~taken;
    unsigned dirs = 0;
    for (Dir d : king ? std::span<const Dir>(kAll) : man_dirs())
      dirs |= static_cast<unsigned>(((kShortJumps.over[s][d] & capturable) != 0) &
                                    ((kShortJumps.land[s][d] & ~occ) != 0))
              << d;
    return dirs;
  }
  // The directions (bit d) in which the piece on s has a jump once `taken` are taken.
  unsigned jump_dirs(int s, bool king, Bitboard taken) {
    return king && flying() ? flying_dirs(s, victims(taken)) : short_dirs(s, king, taken);
  }

  // Field by field into the list: copying cur_ whole would read it with
  // one 32-byte load right after push() wrote single bytes of it (a
  // store-forwarding stall; perf put a quarter of a 7-piece `info --stats`
  // capture search on the copy).
  void record(int s, bool king, Bitboard taken) {
    Move& m = out_.emplace_back();
    m.from = cur_.from;
    m.to = static_cast<std::uint8_t>(s);
    m.num_steps = cur_.num_steps;
    m.promotes = (king && !started_king_) || (!king && (promotion_row(me_) & bit(s)));
    m.taken = taken;
    m.victim_order = cur_.victim_order;
    for (int i = 0; i < cur_.num_steps; ++i) m.path[i] = cur_.path[i];
    if constexpr (Stream) {
      for (std::size_t j = first_of_piece_; j + 1 < out_.size(); ++j)
        if (same_move(out_[j], m, mode_)) {
          out_.pop_back();
          return;
        }
      stopped_ = stop_->fn(stop_->context, m);
    }
  }

  void push(int s, int victim) {
    assert(cur_.num_steps < Move::kMaxSteps && cur_.num_steps < 12);
    cur_.victim_order |= std::uint64_t(victim) << (5 * cur_.num_steps);
    cur_.path[cur_.num_steps++] = static_cast<std::uint8_t>(s);
  }
  void pop() {
    --cur_.num_steps;
    cur_.victim_order &= ~(std::uint64_t{31} << (5 * cur_.num_steps));
  }

  // Continues a capture from s, where the piece has jumps in `dirs`
  // (jump_dirs(s, king, taken)); records it where there are none.
  void search(int s, bool king, Bitboard taken, unsigned dirs) {
    if (dirs == 0) {
      if (taken) record(s, king, taken);
      return;
    }
    const Bitboard occ = occupancy(taken);
    for (Dir d : king ? std::span<const Dir>(kAll) : man_dirs()) {
      if (!(dirs & (1u << d))) continue;
      if (Stream && stopped_) return;
      const int victim = king && flying() ? first_blocker(s, d, occ) : step(s, d);
      assert(victim >= 0 && (opp_ & ~taken & bit(victim)));
      const int land = step(victim, d);
      assert(land >= 0 && !(occ & bit(land)));
      const Bitboard next = taken | bit(victim);
      if (!king) {
        push(land, victim);
        if (promotion_row(me_) & bit(land)) {
          switch (k_.get().capture_promotion) {
            case CapturePromotion::ContinueAsKing: search(land, true, next, jump_dirs(land, true, next)); break;
            case CapturePromotion::ContinueAsManElsePromote:
              search(land, false, next, jump_dirs(land, false, next));
              break;
            case CapturePromotion::PromoteAndStop: record(land, true, next); break;
          }
        } else {
          search(land, false, next, short_dirs(land, false, next));
        }
        pop();
      } else if (!flying() || k_.get().king_landing == KingLanding::RightBehind) {
        push(land, victim);
        search(land, true, next, jump_dirs(land, true, next));
        pop();
      } else {
        const Victims v = victims(next);
        // Flying king, any empty square beyond the victim.  Each landing's
        // jumps are found once: whether it continues, and where.
        int lands[8];
        unsigned further[8];
        int n = 0;
        int l = land;
        for (; l >= 0 && !(v.occ & bit(l)); l = step(l, d)) lands[n++] = l;
        landing_dirs(d, lands, n, l, v, further);
        unsigned some_continue = 0;
        for (int i = 0; i < n; ++i) some_continue |= further[i];
        for (int i = 0; i < n; ++i) {
          if (Stream && stopped_) return;
          if (k_.get().king_must_land_to_continue && some_continue && further[i] == 0) continue;
          push(lands[i], victim);
          search(lands[i], true, next, further[i]);
          pop();
        }
      }
    }
  }

  // Whether kings fly: a constant of a fixed shape.
  bool flying() const { return k_.get().king_range == KingRange::Flying; }

  Shape k_;
  Color me_;
  Bitboard opp_, occ_all_, occ0_ = 0;
  std::array<Bitboard, kNumDirs> behind_{};  // Removal::AtEnd: empty squares (start included) one step back along d
  bool behind_ready_ = false;
  const Victims& root_;
  bool started_king_ = false;
  Move cur_;
  MoveList& out_;
  const rules_detail::CaptureStop* stop_;
  MoveMode mode_;
  std::size_t first_of_piece_ = 0;  // out_'s first move of the piece being searched
  bool stopped_ = false;
};

int capture_value(const Position& p, const Move& m) {
  const Color them = opposite(p.side_to_move);
  return popcount(m.taken & p.men[idx(them)]) + 2 * popcount(m.taken & p.kings[idx(them)]);
}

// The captures of p, the search's rules read through Shape.
// With `stop` (free capture choice only), each move is handed over as it is
// found and the search ends when the consumer says so; the moves are those
// of the whole search, in its order, up to there.
template <class Shape, bool Stream = false>
void generate_captures_as(Shape shape, const Rules& r, const Position& p, MoveList& out, MoveMode mode,
                          const rules_detail::CaptureStop* stop = nullptr) {
  const Color me = p.side_to_move;
  const Bitboard opp = p.pieces(opposite(me));
  const Bitboard empty = p.empty();
  Victims root;
  root.occ = p.occupied();
  // Each direction spelt out: shift() of a direction known at compile time has no branch.
  root.along = {victims_along(opp, empty, UpLeft), victims_along(opp, empty, UpRight),
                victims_along(opp, empty, DownLeft), victims_along(opp, empty, DownRight)};
  CaptureSearch<Shape, Stream> cs(shape, p, root, out, stop, mode);
  // Only men with a first jump (a victim along d on the next square along
  // d) start a search.
  const Bitboard up = shift(root.along[UpLeft], DownRight) | shift(root.along[UpRight], DownLeft);
  const Bitboard down = shift(root.along[DownLeft], UpRight) | shift(root.along[DownRight], UpLeft);
  const Bitboard capturers = shape.get().men_capture_backward ? (up | down) : (me == Color::White ? up : down);
  for (Bitboard b = p.men[idx(me)] & capturers; b; b &= b - 1) {
    cs.run(lsb(b), false);
    if (Stream && cs.stopped()) return;
  }
  // Only kings with something to take along one of their rays start one.
  if (const Bitboard kings = p.kings[idx(me)]) {
    const auto& victims = root.along;
    for (Bitboard b = kings; b; b &= b - 1) {
      const int s = lsb(b);
      if ((ray(s, UpLeft) & victims[UpLeft]) | (ray(s, UpRight) & victims[UpRight]) |
          (ray(s, DownLeft) & victims[DownLeft]) | (ray(s, DownRight) & victims[DownRight])) {
        cs.run(s, true);
        if (Stream && cs.stopped()) return;
      }
    }
  }
  if (Stream || out.empty()) return;  // Stream: repeats were dropped as they came

  if (r.capture_choice != CaptureChoice::Free) {
    auto score = [&](const Move& m) {
      return r.capture_choice == CaptureChoice::MostPieces ? popcount(m.taken) : capture_value(p, m);
    };
    int best = 0;
    for (const Move& m : out) best = std::max(best, score(m));
    std::erase_if(out, [&](const Move& m) { return score(m) != best; });
  }
  if (out.size() > 1) {
    // Merged: keep the first path of each distinct (from, to, taken, promotes).
    // AllPaths: a king's different landing squares between the same pieces
    // taken in the same order are one path.
    auto same = [mode](const Move& a, const Move& b) { return same_move(a, b, mode); };
    std::size_t kept = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      bool dup = false;
      for (std::size_t j = 0; j < kept && !dup; ++j) dup = same(out[j], out[i]);
      if (!dup) out[kept++] = out[i];
    }
    out.resize(kept);
  }
}

// The captures of p by the search fixed for r's shape (that of the first
// variant of the table with it), or read at run time for a shape the table
// lacks; Stream: handed to `stop` as found (generate_captures_as).  Cost: up
// to six comparisons of the shape before the search.
template <bool Stream = false, std::size_t I = 0>
void generate_captures(const Rules& r, const Position& p, MoveList& out, MoveMode mode,
                       const rules_detail::CaptureStop* stop = nullptr) {
  using rules_detail::kRulesTable;
  if constexpr (I == kRulesTable.size()) {
    generate_captures_as<RuntimeShape, Stream>(RuntimeShape(r), r, p, out, mode, stop);
  } else {
    constexpr CaptureShape s = capture_shape(kRulesTable[I]);
    if (capture_shape(r) == s)
      generate_captures_as<FixedShape<s>, Stream>(FixedShape<s>(r), r, p, out, mode, stop);
    else
      generate_captures<Stream, I + 1>(r, p, out, mode, stop);
  }
}

// Men quiet-move targets of colour c in direction d.
inline Bitboard men_targets(const Position& p, Color c, Dir d) {
  return shift(p.men[idx(c)], d) & p.empty();
}

void append_quiet_man_moves(const Position& p, MoveList& out) {
  const Color me = p.side_to_move;
  for (Dir d : forward_dirs(me)) {
    for (Bitboard t = men_targets(p, me, d); t; t &= t - 1) {
      const int to = lsb(t);
      Move m;
      m.from = static_cast<std::uint8_t>(step(to, reverse(d)));
      m.to = static_cast<std::uint8_t>(to);
      m.num_steps = 1;
      m.path[0] = m.to;
      m.promotes = (promotion_row(me) & bit(to)) != 0;
      out.push_back(m);
    }
  }
}

}  // namespace

namespace rules_detail {
bool generate_captures_at_run_time(const Rules& r, const Position& p, MoveList& out, MoveMode mode) {
  out.clear();
  generate_captures_as(RuntimeShape(r), r, p, out, mode);
  return !out.empty();
}
}  // namespace rules_detail

bool rules_detail::captures_until(const Rules& r, const Position& p, MoveList& out, MoveMode mode,
                                  const CaptureStop& stop) {
  out.clear();
  if (r.capture_choice == CaptureChoice::Free) {
    generate_captures<true>(r, p, out, mode, &stop);
    return !out.empty();
  }
  // A majority rule: which captures count is known only once all are found.
  generate_captures(r, p, out, mode);
  for (std::size_t i = 0; i < out.size(); ++i)
    if (stop.fn(stop.context, out[i])) {
      out.resize(i + 1);
      break;
    }
  return !out.empty();
}

void generate_capture_moves(const Rules& r, const Position& p, MoveList& out, MoveMode mode) {
  out.clear();
  generate_captures(r, p, out, mode);
  assert(!out.empty());
}

bool generate_capture_moves_if_any(const Rules& r, const Position& p, MoveList& out, MoveMode mode) {
  out.clear();
  generate_captures(r, p, out, mode);
  return !out.empty();
}

void generate_quiet_man_moves(const Position& p, MoveList& out) {
  out.clear();
  append_quiet_man_moves(p, out);
}

bool has_capture(const Rules& r, const Position& p) {
  const Color me = p.side_to_move;
  const Bitboard opp = p.pieces(opposite(me));
  const Bitboard empty = p.empty();
  // The pieces a jump along each direction could take, and the squares from
  // which a short jump up or down takes one, as generate_captures_as finds
  // its capturers: each direction spelt out (shift() of a direction known at
  // compile time has no branch; a loop over the directions made each shift
  // a switch, most of this function's cost).
  const std::array<Bitboard, kNumDirs> along = {victims_along(opp, empty, UpLeft), victims_along(opp, empty, UpRight),
                                                victims_along(opp, empty, DownLeft),
                                                victims_along(opp, empty, DownRight)};
  const Bitboard up = shift(along[UpLeft], DownRight) | shift(along[UpRight], DownLeft);
  const Bitboard down = shift(along[DownLeft], UpRight) | shift(along[DownRight], UpLeft);
  const Bitboard men = p.men[idx(me)];
  if (men & (r.men_capture_backward ? (up | down) : me == Color::White ? up : down)) return true;
  const Bitboard kings = p.kings[idx(me)];
  if (!kings) return false;
  if (r.king_range == KingRange::Short) return (kings & (up | down)) != 0;
  const Bitboard occ = p.occupied();
  for (Bitboard b = kings; b; b &= b - 1) {
    const int s = lsb(b);
    for (Dir d : kAll) {
      if (!(ray(s, d) & along[d])) continue;  // nothing to take along d: no blocker to look for
      const int v = first_blocker(s, d, occ);
      if (v >= 0 && (along[d] & bit(v))) return true;
    }
  }
  return false;
}

void generate_moves(const Rules& r, const Position& p, MoveList& out, MoveMode mode) {
  if (generate_capture_moves_if_any(r, p, out, mode)) return;
  const Color me = p.side_to_move;
  append_quiet_man_moves(p, out);
  const Bitboard occ = p.occupied();
  for (Bitboard b = p.kings[idx(me)]; b; b &= b - 1) {
    const int s = lsb(b);
    for (Dir d : kAll) {
      Bitboard t = king_targets_along(r, s, d, occ);
      for (; t; t &= t - 1) {
        Move m;
        m.from = static_cast<std::uint8_t>(s);
        m.to = static_cast<std::uint8_t>(lsb(t));
        m.num_steps = 1;
        m.path[0] = m.to;
        out.push_back(m);
      }
    }
  }
}

namespace {
std::uint64_t count_moves_with(const Rules& r, const Position& p, MoveMode mode, MoveList& scratch) {
  if (generate_capture_moves_if_any(r, p, scratch, mode)) return scratch.size();
  const Color me = p.side_to_move;
  std::uint64_t n = 0;
  for (Dir d : forward_dirs(me)) n += popcount(men_targets(p, me, d));
  const Bitboard occ = p.occupied();
  for (Bitboard b = p.kings[idx(me)]; b; b &= b - 1) n += popcount(king_step_targets(r, lsb(b), occ));
  return n;
}
}  // namespace

std::uint64_t count_moves(const Rules& r, const Position& p, MoveMode mode) {
  MoveList scratch;
  return count_moves_with(r, p, mode, scratch);
}

Position apply(const Position& p, const Move& m) {
  Position q = p;
  const Color me = p.side_to_move;
  const Color them = opposite(me);
  const bool was_king = (p.kings[idx(me)] & bit(m.from)) != 0;
  assert((p.pieces(me) & bit(m.from)) != 0);
  q.men[idx(me)] &= ~bit(m.from);
  q.kings[idx(me)] &= ~bit(m.from);
  q.men[idx(them)] &= ~m.taken;
  q.kings[idx(them)] &= ~m.taken;
  if (was_king || m.promotes)
    q.kings[idx(me)] |= bit(m.to);
  else
    q.men[idx(me)] |= bit(m.to);
  q.side_to_move = them;
  return q;
}

namespace {
std::uint64_t perft_rec(const Rules& r, const Position& p, int depth, MoveMode mode, std::vector<MoveList>& lists) {
  if (depth == 1) return count_moves_with(r, p, mode, lists[0]);
  MoveList& moves = lists[depth];
  generate_moves(r, p, moves, mode);
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < moves.size(); ++i) n += perft_rec(r, apply(p, moves[i]), depth - 1, mode, lists);
  return n;
}
}  // namespace

std::uint64_t perft(const Rules& r, const Position& p, int depth, MoveMode mode) {
  if (depth <= 0) return 1;
  std::vector<MoveList> lists(static_cast<std::size_t>(depth) + 1);
  return perft_rec(r, p, depth, mode, lists);
}

}  // namespace damka
