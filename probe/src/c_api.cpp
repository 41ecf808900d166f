// The C interface (damka.h) over damka::Tablebase.  Every entry point
// catches every exception.
#include "damka.h"

#include <cstring>
#include <new>
#include <string>

#include "damka/detail/c_api.hpp"
#include "damka/notation.hpp"
#include "damka/probe.hpp"

namespace {
thread_local std::string g_last_error;
}  // namespace

namespace damka::capi {

damka_status fail(damka_status s, std::string_view message) noexcept {
  try {
    g_last_error.assign(message);
  } catch (...) {
    g_last_error.clear();  // no memory for the message: keep the status
  }
  return s;
}

damka_status status_of(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::NotFound: return DAMKA_UNKNOWN;
    case ErrorCode::Io: return DAMKA_E_IO;
    case ErrorCode::Corrupt: return DAMKA_E_CORRUPT;
    case ErrorCode::InvalidArgument: return DAMKA_E_BAD_ARGUMENT;
    case ErrorCode::InvalidPosition: return DAMKA_E_INVALID_POSITION;
    case ErrorCode::Other: break;
  }
  return DAMKA_E_INTERNAL;
}

damka_status fail(const Error& e) noexcept { return fail(status_of(e.code()), e.message()); }

damka_status read_fen(const damka_tablebase* h, const char* fen, Position& p) {
  if (fen == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "fen is NULL");
  auto parsed = parse_fen(h->tb->rules(), fen);
  if (!parsed) return fail(DAMKA_E_BAD_FEN, parsed.message());
  p = *parsed;
  return DAMKA_OK;
}

}  // namespace damka::capi

namespace {

using namespace damka;
using capi::fail;
using capi::guarded;
using capi::read_fen;

// The status of a probe that did not answer Ok, by its code, with the
// message probe_status_error() gives every front end.
damka_status from_probe(ProbeStatus s, const damka_tablebase* h, const Position& p, Metric m,
                        ProbeMode mode = ProbeMode::Normal) {
  if (s == ProbeStatus::Ok) return DAMKA_OK;
  const Error e = probe_status_error(*h->tb, p, s, m, mode);
  if (s == ProbeStatus::NotCached) return fail(DAMKA_NOT_CACHED, e.message());  // not an error: no code of its own
  return capi::fail(e);
}

damka_status make_position(uint32_t wm, uint32_t wk, uint32_t bm, uint32_t bk, int stm, Position& p) {
  if (stm != DAMKA_WHITE && stm != DAMKA_BLACK)
    return fail(DAMKA_E_BAD_ARGUMENT, "side_to_move must be DAMKA_WHITE (0) or DAMKA_BLACK (1)");
  p.men[0] = wm;
  p.kings[0] = wk;
  p.men[1] = bm;
  p.kings[1] = bk;
  p.side_to_move = stm == DAMKA_WHITE ? Color::White : Color::Black;
  return DAMKA_OK;
}

// A C enum argument may hold any int the caller passed; reading it as the
// enum type when it is out of range is undefined behaviour in C++ (UBSan's
// -fsanitize=enum), so its bytes are read as an int.
template <class E>
int enum_bits(const E& e) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

bool metric_of(int m, Metric& out) {
  switch (m) {
    case DAMKA_WDL: out = Metric::WDL; return true;
    case DAMKA_DTW: out = Metric::DTW; return true;
    case DAMKA_DTC: out = Metric::DTC; return true;
  }
  return false;
}

damka_value to_c(Value v) { return {static_cast<int>(v.wdl), static_cast<int>(v.plies)}; }

damka_status probe_position(const damka_tablebase* h, const Position& p, int metric, ProbeMode mode,
                            damka_value* out) {
  Metric m;
  if (!metric_of(metric, m)) return fail(DAMKA_E_BAD_ARGUMENT, "unknown metric");
  const ProbeResult r = h->tb->probe(p, m, mode);
  if (r.ok()) {
    *out = to_c(r.value);
    return DAMKA_OK;
  }
  return from_probe(r.status, h, p, m, mode);
}

// Copies `in` (moves of p with their values) into the caller's `out`
// array: the count, the room check, each move's text and squares, then
// `values(in[i], out[i])` for the rest of its fields.
template <class In, class Out, class Values>
damka_status copy_moves(const damka_tablebase* h, const Position& p, const std::vector<In>& in, Out* out,
                        size_t capacity, size_t* count, Values values) {
  *count = in.size();
  if (in.size() > capacity)
    return fail(DAMKA_E_BUFFER_TOO_SMALL, "room for " + std::to_string(capacity) + " moves, " +
                                              std::to_string(in.size()) + " needed");
  if (!in.empty() && out == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "moves is NULL");
  for (std::size_t i = 0; i < in.size(); ++i) {
    Out& o = out[i];
    std::memset(&o, 0, sizeof o);
    const std::string text = move_to_string(h->tb->rules(), p, in[i].move);
    std::strncpy(o.text, text.c_str(), sizeof o.text - 1);
    o.from = in[i].move.from;
    o.to = in[i].move.to;
    o.taken = in[i].move.taken;
    o.promotes = in[i].move.promotes ? 1 : 0;
    values(in[i], o);
  }
  return DAMKA_OK;
}

damka_status moves_of(const damka_tablebase* h, const Position& p, damka_move_value* moves, size_t capacity,
                      size_t* count) {
  std::vector<MoveValue> mv;
  const ProbeStatus s = h->tb->probe_moves(p, mv);
  if (s != ProbeStatus::Ok) {
    *count = 0;
    return from_probe(s, h, p, Metric::DTW);
  }
  return copy_moves(h, p, mv, moves, capacity, count, [](const MoveValue& m, damka_move_value& o) {
    o.dtw = to_c(m.dtw);
    o.dtc = to_c(m.dtc);
    o.dtc_known = m.dtc_known ? 1 : 0;
  });
}

damka_status root_of(const damka_tablebase* h, const Position& p, damka_root_move* moves, size_t capacity,
                     size_t* count, int* ranked_by) {
  if (ranked_by) *ranked_by = DAMKA_RANKED_NONE;
  std::vector<RootMove> rm;
  RootRanking ranking = RootRanking::None;
  if (ProbeStatus s = h->tb->probe_root(p, rm, ranking); s != ProbeStatus::Ok) {
    *count = 0;
    return from_probe(s, h, p, Metric::WDL);
  }
  const damka_status st = copy_moves(h, p, rm, moves, capacity, count, [](const RootMove& m, damka_root_move& o) {
    o.wdl = to_c(m.wdl);
    o.dtw = to_c(m.dtw);
    o.dtc = to_c(m.dtc);
    o.dtw_known = m.dtw_known ? 1 : 0;
    o.dtc_known = m.dtc_known ? 1 : 0;
  });
  if (st != DAMKA_OK) return st;
  if (ranked_by)
    *ranked_by = ranking == RootRanking::DTW ? DAMKA_RANKED_DTW : ranking == RootRanking::DTC ? DAMKA_RANKED_DTC
                                                                                               : DAMKA_RANKED_NONE;
  return DAMKA_OK;
}

}  // namespace

extern "C" {

damka_status damka_open(const char* variant, const char* dir, size_t cache_bytes, damka_tablebase** out) {
  return guarded([&] {
    if (out == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "out is NULL");
    *out = nullptr;
    if (variant == nullptr || dir == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "variant or dir is NULL");
    const auto v = parse_variant(variant);
    if (!v)
      return fail(DAMKA_E_BAD_ARGUMENT, std::string("unknown variant '") + variant + "' (known: " + variant_names() + ")");
    TablebaseOptions opt;
    opt.cache_bytes = cache_bytes;
    auto tb = Tablebase::open(rules_of(*v), dir, std::move(opt));
    if (!tb) return fail(DAMKA_E_OPEN, tb.message());
    auto* h = new damka_tablebase{std::move(*tb)};
    *out = h;
    return DAMKA_OK;
  });
}

void damka_close(damka_tablebase* tb) { delete tb; }

int damka_max_pieces(const damka_tablebase* tb) { return tb ? tb->tb->max_pieces() : 0; }

damka_status damka_probe(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings, uint32_t black_men,
                         uint32_t black_kings, int side_to_move, damka_metric metric, damka_value* out) {
  const int metric_bits = enum_bits(metric);
  return guarded([&] {
    if (tb == nullptr || out == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "tb or out is NULL");
    Position p;
    if (damka_status s = make_position(white_men, white_kings, black_men, black_kings, side_to_move, p); s != DAMKA_OK)
      return s;
    return probe_position(tb, p, metric_bits, ProbeMode::Normal, out);
  });
}

damka_status damka_probe_conditional(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings,
                                     uint32_t black_men, uint32_t black_kings, int side_to_move,
                                     damka_metric metric, damka_value* out) {
  const int metric_bits = enum_bits(metric);
  return guarded([&] {
    if (tb == nullptr || out == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "tb or out is NULL");
    Position p;
    if (damka_status s = make_position(white_men, white_kings, black_men, black_kings, side_to_move, p); s != DAMKA_OK)
      return s;
    return probe_position(tb, p, metric_bits, ProbeMode::Conditional, out);
  });
}

damka_status damka_probe_fen(const damka_tablebase* tb, const char* fen, damka_metric metric, damka_value* out) {
  const int metric_bits = enum_bits(metric);
  return guarded([&] {
    if (tb == nullptr || out == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "tb or out is NULL");
    Position p;
    if (damka_status s = read_fen(tb, fen, p); s != DAMKA_OK) return s;
    return probe_position(tb, p, metric_bits, ProbeMode::Normal, out);
  });
}

damka_status damka_probe_moves(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings,
                               uint32_t black_men, uint32_t black_kings, int side_to_move, damka_move_value* moves,
                               size_t capacity, size_t* count) {
  return guarded([&] {
    if (tb == nullptr || count == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "tb or count is NULL");
    *count = 0;
    Position p;
    if (damka_status s = make_position(white_men, white_kings, black_men, black_kings, side_to_move, p); s != DAMKA_OK)
      return s;
    return moves_of(tb, p, moves, capacity, count);
  });
}

damka_status damka_probe_moves_fen(const damka_tablebase* tb, const char* fen, damka_move_value* moves,
                                   size_t capacity, size_t* count) {
  return guarded([&] {
    if (tb == nullptr || count == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "tb or count is NULL");
    *count = 0;
    Position p;
    if (damka_status s = read_fen(tb, fen, p); s != DAMKA_OK) return s;
    return moves_of(tb, p, moves, capacity, count);
  });
}

damka_status damka_probe_root(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings,
                              uint32_t black_men, uint32_t black_kings, int side_to_move, damka_root_move* moves,
                              size_t capacity, size_t* count, int* ranked_by) {
  return guarded([&] {
    if (tb == nullptr || count == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "tb or count is NULL");
    *count = 0;
    Position p;
    if (damka_status s = make_position(white_men, white_kings, black_men, black_kings, side_to_move, p); s != DAMKA_OK)
      return s;
    return root_of(tb, p, moves, capacity, count, ranked_by);
  });
}

damka_status damka_probe_root_fen(const damka_tablebase* tb, const char* fen, damka_root_move* moves,
                                  size_t capacity, size_t* count, int* ranked_by) {
  return guarded([&] {
    if (tb == nullptr || count == nullptr) return fail(DAMKA_E_BAD_ARGUMENT, "tb or count is NULL");
    *count = 0;
    Position p;
    if (damka_status s = read_fen(tb, fen, p); s != DAMKA_OK) return s;
    return root_of(tb, p, moves, capacity, count, ranked_by);
  });
}

damka_status damka_principal_variation_fen(const damka_tablebase* tb, const char* fen, char* buffer, size_t size) {
  return guarded([&] {
    if (tb == nullptr || buffer == nullptr || size == 0) return fail(DAMKA_E_BAD_ARGUMENT, "tb or buffer is NULL, or size 0");
    buffer[0] = '\0';
    Position p;
    if (damka_status s = read_fen(tb, fen, p); s != DAMKA_OK) return s;
    std::vector<Move> pv;
    if (ProbeStatus s = tb->tb->principal_variation(p, pv); s != ProbeStatus::Ok) return from_probe(s, tb, p, Metric::DTW);
    std::string text;
    Position cur = p;
    for (const Move& m : pv) {
      if (!text.empty()) text += ' ';
      text += move_to_string(tb->tb->rules(), cur, m);
      cur = apply(cur, m);
    }
    if (text.size() + 1 > size)
      return fail(DAMKA_E_BUFFER_TOO_SMALL, "the line needs " + std::to_string(text.size() + 1) + " bytes");
    std::memcpy(buffer, text.c_str(), text.size() + 1);
    return DAMKA_OK;
  });
}

const char* damka_status_string(damka_status status) {
  switch (enum_bits(status)) {
    case DAMKA_OK: return "ok";
    case DAMKA_UNKNOWN: return "unknown";
    case DAMKA_NOT_CACHED: return "not cached";
    case DAMKA_E_CORRUPT: return "corrupt table";
    case DAMKA_E_INVALID_POSITION: return "invalid position";
    case DAMKA_E_BAD_FEN: return "bad FEN";
    case DAMKA_E_BAD_ARGUMENT: return "bad argument";
    case DAMKA_E_OPEN: return "cannot open";
    case DAMKA_E_NO_MEMORY: return "out of memory";
    case DAMKA_E_BUFFER_TOO_SMALL: return "buffer too small";
    case DAMKA_E_INTERNAL: return "internal error";
    case DAMKA_E_IO: return "i/o error";
  }
  return "unknown status";
}

const char* damka_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"
