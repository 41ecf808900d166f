/* damka.h: the C interface to damka's endgame tablebases for draughts.
 *
 *   damka_tablebase* tb = NULL;
 *   if (damka_open("russian", "data/tables", 64u << 20, &tb) != DAMKA_OK) {
 *     fprintf(stderr, "%s\n", damka_last_error());
 *   }
 *   damka_value v;
 *   damka_status s = damka_probe(tb, white_men, white_kings, black_men, black_kings,
 *                                DAMKA_WHITE, DAMKA_DTW, &v);
 *   ...
 *   damka_close(tb);
 *
 * Square numbering (the bits of the four bitboards): the 32 playing squares
 * are numbered 0..31 row by row from White's side.  Square s lies on row
 * r = s / 4 (row 0 = rank 1) and file f = 2 * (s % 4) + (r & 1) (file 0 =
 * 'a'): a1 = 0, c1 = 1, e1 = 2, g1 = 3, b2 = 4, d2 = 5, ..., h8 = 31.  Bit s
 * (value 1u << s) stands for square s.  White's men move toward row 7.  The
 * mirrored variants (Filipino, Mozambique) use the same numbering; only their
 * square names (in FEN and move text) are reflected.
 *
 * Values are for the side to move: DAMKA_WIN / DAMKA_DRAW / DAMKA_LOSS and a
 * distance in plies (0 for WDL and for draws).  DTW counts plies to the end
 * of the game, DTC plies to the next capture or promotion.  A side to move
 * without pieces, or without a legal move, has lost in 0 plies.
 *
 * Errors: every function returns a damka_status; when it is not DAMKA_OK,
 * damka_last_error() gives a message (per thread, valid until this thread's
 * next call).  DAMKA_UNKNOWN and DAMKA_NOT_CACHED are answers, not failures:
 * the value is not known (a table is missing) or not in memory (conditional
 * probe).  DAMKA_E_CORRUPT means a file is damaged (it is then treated as
 * missing); DAMKA_E_IO means it could not be read just now and may be read
 * by a later call (e.g. after file descriptors are freed).  Enum arguments
 * (damka_metric, damka_status) may hold any int: values outside the enum
 * give DAMKA_E_BAD_ARGUMENT (or "unknown status").  No C++ exception leaves
 * this interface.
 *
 * Threads: a damka_tablebase may be probed from many threads at once;
 * damka_close must not run concurrently with other calls on the handle.
 */
#ifndef DAMKA_H
#define DAMKA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct damka_tablebase damka_tablebase; /* opaque */

typedef enum damka_status {
  DAMKA_OK = 0,
  DAMKA_UNKNOWN = 1,            /* a table the answer needs is missing (or was reported corrupt) */
  DAMKA_NOT_CACHED = 2,         /* conditional probe: the answer needs something not in memory */
  DAMKA_E_CORRUPT = 3,          /* a table was found damaged now: reported once, then treated as missing */
  DAMKA_E_INVALID_POSITION = 4, /* overlapping pieces, a man on its promotion row, or the side
                                   not to move has no pieces */
  DAMKA_E_BAD_FEN = 5,          /* the FEN text could not be read */
  DAMKA_E_BAD_ARGUMENT = 6,     /* NULL pointer, unknown variant or metric, side not 0 or 1 */
  DAMKA_E_OPEN = 7,             /* the table directory could not be opened */
  DAMKA_E_NO_MEMORY = 8,
  DAMKA_E_BUFFER_TOO_SMALL = 9, /* the output array or buffer is too small (see the function) */
  DAMKA_E_INTERNAL = 10,
  DAMKA_E_IO = 11               /* a table could not be read now (the system failed: too many open
                                   files, EIO, no memory); not corruption: nothing is marked broken
                                   and a later call tries the file again */
} damka_status;

typedef enum damka_metric { DAMKA_WDL = 0, DAMKA_DTW = 1, DAMKA_DTC = 2 } damka_metric;

enum { DAMKA_WHITE = 0, DAMKA_BLACK = 1 };          /* side to move */
enum { DAMKA_LOSS = -1, DAMKA_DRAW = 0, DAMKA_WIN = 1 }; /* damka_value.result */

typedef struct damka_value {
  int result; /* DAMKA_WIN, DAMKA_DRAW or DAMKA_LOSS for the side to move */
  int plies;  /* distance in plies; 0 for WDL and for draws */
} damka_value;

/* A legal move and the value it leads to, for the side that plays it. */
typedef struct damka_move_value {
  char text[64];   /* the move in the variant's notation, e.g. "c3-d4", "a1:e5:h2", "22x15" */
  int from, to;    /* squares 0..31 */
  uint32_t taken;  /* bitboard of the pieces it takes */
  int promotes;    /* 1 if it ends as a new king */
  damka_value dtw; /* DTW value of the move */
  damka_value dtc; /* DTC value of the move (valid when dtc_known) */
  int dtc_known;   /* 0 when a DTC table the move needs is missing */
} damka_move_value;

/* A root move (damka_probe_root): a legal move that keeps the position's
 * value, for the side that plays it. */
typedef struct damka_root_move {
  char text[64];   /* the move in the variant's notation */
  int from, to;    /* squares 0..31 */
  uint32_t taken;  /* bitboard of the pieces it takes */
  int promotes;    /* 1 if it ends as a new king */
  damka_value wdl; /* WDL value of the move (the position's value) */
  damka_value dtw; /* DTW value of the move (valid when dtw_known) */
  damka_value dtc; /* DTC value of the move (valid when dtc_known) */
  int dtw_known;   /* 0 when a DTW table the move needs is missing */
  int dtc_known;   /* 0 when a DTC table the move needs is missing */
} damka_root_move;

/* How damka_probe_root ranked its moves. */
enum { DAMKA_RANKED_NONE = 0, DAMKA_RANKED_DTW = 1, DAMKA_RANKED_DTC = 2 };

/* Opens the tables of `variant` ("russian", "brazilian", "filipino",
 * "mozambique", "thai", "english"; case-insensitive) under `dir` (the
 * directory given to `damka generate -o`, holding one folder per variant
 * family, or that family folder itself), with a cache of at most `cache_bytes` of decompressed blocks.
 * Files are opened on first use.  On success *out is the handle. */
damka_status damka_open(const char* variant, const char* dir, size_t cache_bytes, damka_tablebase** out);
/* Frees the handle (NULL is allowed). */
void damka_close(damka_tablebase* tb);
/* The most pieces of a material whose table files were present when opened. */
int damka_max_pieces(const damka_tablebase* tb);

/* The value of a position given as four bitboards and the side to move.
 * More than 12 pieces a side is DAMKA_E_INVALID_POSITION, as in a FEN. */
damka_status damka_probe(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings, uint32_t black_men,
                         uint32_t black_kings, int side_to_move, damka_metric metric, damka_value* out);
/* The same, but never reading from disk: DAMKA_NOT_CACHED when the answer
 * needs a block (or a file) not in memory. */
damka_status damka_probe_conditional(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings,
                                     uint32_t black_men, uint32_t black_kings, int side_to_move,
                                     damka_metric metric, damka_value* out);
/* The value of a position given as a FEN (PDN 3.0, e.g. "W:WKa1,c3:BKh8"). */
damka_status damka_probe_fen(const damka_tablebase* tb, const char* fen, damka_metric metric, damka_value* out);

/* Every legal move with its value, best first (wins shortest first, then
 * draws, then losses longest first).  Writes at most `capacity` moves and
 * sets *count to the number of legal moves; DAMKA_E_BUFFER_TOO_SMALL (with
 * *count set) when they do not fit.  A position without legal moves gives
 * DAMKA_OK and *count = 0. */
damka_status damka_probe_moves(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings,
                               uint32_t black_men, uint32_t black_kings, int side_to_move, damka_move_value* moves,
                               size_t capacity, size_t* count);
damka_status damka_probe_moves_fen(const damka_tablebase* tb, const char* fen, damka_move_value* moves,
                                   size_t capacity, size_t* count);

/* Like Fathom's tb_probe_root: the legal moves that keep the position's
 * WDL value (every winning move of a won position, every drawing move of a
 * drawn one, every move of a lost one), best first by DTW where every kept
 * move's DTW is known, else by DTC where every DTC is known, else in legal
 * move order; *ranked_by (may be NULL) gets DAMKA_RANKED_DTW, _DTC or _NONE
 * (always _NONE for a draw).  Works with WDL files alone.  Writes at most
 * `capacity` moves and sets *count to the number kept;
 * DAMKA_E_BUFFER_TOO_SMALL (with *count set) when they do not fit.  A
 * position without legal moves gives DAMKA_OK and *count = 0.  Cost: one WDL
 * probe per legal move and a DTW and a DTC probe per kept move. */
damka_status damka_probe_root(const damka_tablebase* tb, uint32_t white_men, uint32_t white_kings,
                              uint32_t black_men, uint32_t black_kings, int side_to_move, damka_root_move* moves,
                              size_t capacity, size_t* count, int* ranked_by);
damka_status damka_probe_root_fen(const damka_tablebase* tb, const char* fen, damka_root_move* moves,
                                  size_t capacity, size_t* count, int* ranked_by);

/* The principal variation to the end of the game as move texts separated
 * by spaces, written to `buffer` (NUL-terminated; empty for a draw).
 * DAMKA_E_BUFFER_TOO_SMALL when it does not fit in `size` bytes. */
damka_status damka_principal_variation_fen(const damka_tablebase* tb, const char* fen, char* buffer, size_t size);

/* A short name of a status, e.g. "unknown". */
const char* damka_status_string(damka_status s);
/* The message of this thread's last call that did not return DAMKA_OK ("" if none). */
const char* damka_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* DAMKA_H */
