// Table files: one metric of one canonical material of one variant, stored
// as fixed-size blocks of slots (see slots.hpp), each block compressed on its
// own (WDL: run-length symbols with a Huffman code; DTW/DTC: zstd), found
// through a compact index, guarded by xxHash checksums.  The byte-by-byte
// layout is in format/FORMAT.md (format version 7).
#pragma once

#include <cstdint>
#include <filesystem>
#include <atomic>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "damka/env.hpp"
#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka {

// The version this build writes.  It reads versions kOldestReadVersion..7:
// version 6 differs only in its WDL (wdlrun) files: 6 Huffman contexts
// instead of 36, and an index of fixed layout (FORMAT.md 3.2); version 5
// differs only in that it has no one-side distance files (header
// byte 72, StoredSide below; a version-5 file stores both sides), version 4
// in that its DTW and DTC files store the entries of drawn positions (which
// version 5 leaves don't care, FORMAT.md 3.5); reading either the
// version-6 way gives the same values.
inline constexpr std::uint16_t kTableFormatVersion = 7;
inline constexpr std::uint16_t kOldestReadVersion = 4;
inline constexpr std::uint32_t kTableHeaderSize = 128;
inline constexpr std::uint32_t kMaxBlockSize = 1u << 24;  // positions per block
// A code given to TableBuilder::add() / write_table() for a slot whose value
// the oracle derives (value_oracle.hpp is_derived: the side to move must
// capture).  The writer stores whatever compresses best there; a reader
// returns some valid code for such a slot, and nothing may rely on it.
inline constexpr std::uint16_t kDontCareCode = 0xFFFF;

// How slots are numbered; only one scheme so far (index.hpp + slots.hpp).
enum class IndexScheme : std::uint8_t { SliceMajor = 1 };

// How a block's codes (value.hpp) are stored.  The first three are zstd
// frames of the block's codes laid out as below; WdlRun is damka's own.
enum class ValueEncoding : std::uint8_t {
  Wdl2 = 1,       // zstd of: 2 bits per code (codes 0..2 only), 4 codes per byte, low bits first
  U16 = 2,        // zstd of: 2 bytes per code, little-endian
  U16Planes = 3,  // zstd of: the low bytes of the block's codes, then their high bytes
  WdlRun = 4,     // WDL only: run-length symbols, Huffman-coded with one code per file
};
std::string_view encoding_name(ValueEncoding e);

// Which sides to move a table's entries are stored for.  A distance file
// (DTW, DTC) of a non-symmetric material may keep one side only (FORMAT.md
// 3.6): the other side's entries are don't care, and its values are found
// by a search over its moves (value_oracle.hpp).  WDL files and symmetric
// materials store Both.
enum class StoredSide : std::uint8_t { Both = 0, White = 1, Black = 2 };
std::string_view stored_side_name(StoredSide s);  // "both", "white", "black"

struct TableHeader {
  // Set by write_table: this build's version, or 6 when 6 is given (files
  // for readers of older builds).
  std::uint16_t format_version = kTableFormatVersion;
  Variant variant = Variant::Russian;
  std::uint64_t fingerprint = 0;  // Rules::fingerprint() of the variant
  Material material;              // canonical
  Metric metric = Metric::WDL;
  IndexScheme index_scheme = IndexScheme::SliceMajor;
  ValueEncoding encoding = ValueEncoding::Wdl2;
  std::uint64_t slots = 0;        // table_slots(material)
  std::uint32_t block_size = 0;   // positions per block (the last block may be shorter)
  int zstd_level = 0;             // zstd encodings: used by the writer; recorded for information
  // Read from the file.  Given to the writer: Both, or the side to keep
  // (WriteOptions::keep_smaller_side chooses instead).
  StoredSide stored_side = StoredSide::Both;
  // Computed by write_table (ignored on input) and read back from the file:
  std::uint16_t max_code = 0;     // largest code in the table
  std::uint64_t num_blocks = 0;
  std::uint64_t file_size = 0;
  std::uint64_t index_bytes = 0;  // the index after the header (FORMAT.md 3: codebook, groups, blocks)

  // 1 = White to move only (symmetric material), 2 = White then Black.
  int sides() const { return material.is_symmetric() ? 1 : 2; }
  // Whether slot's entry is stored (not don't care by StoredSide; derived
  // positions aside).  slot < slots.  Free.
  bool stores_slot(std::uint64_t slot) const {
    return stored_side == StoredSide::Both || (slot < slots / 2) == (stored_side == StoredSide::White);
  }
  friend bool operator==(const TableHeader&, const TableHeader&) = default;
};

// How hard the DTW and DTC files are compressed (WDL files are the same
// either way).  Fast: blocks of 16384 positions at zstd level 7.  Small:
// blocks of 32768 at level 15, about 12% smaller for about 5x the
// compression time and twice the time of a DTW/DTC block miss when probing
// (FORMAT.md 6).  Readers read both alike.
enum class Compression : std::uint8_t { Fast, Small };
constexpr std::string_view compression_name(Compression c) { return c == Compression::Small ? "small" : "fast"; }

// A header with this build's defaults for the metric: WDL uses WdlRun with
// 1024 positions per block; DTW and DTC use U16Planes with zstd (block size
// and level by `compression`; FORMAT.md, "Defaults", has the measurements).
TableHeader default_table_header(const Rules& rules, Material canonical, Metric metric,
                                 Compression compression = Compression::Fast);

// Whether a header describes a table this build can write or read
// (known enums, canonical material, slot count, block size, ...).
Status check_table_header(const TableHeader& h);

// Whether the table was built for these rules (fingerprint).  The error names
// `file`, the header's variant and the one expected (foreign_table_message).
Status check_table_rules(const TableHeader& h, const Rules& rules, const std::filesystem::path& file = {});

struct WriteOptions {
  int threads = 0;     // blocks compressed in parallel; 0 = OpenMP default
  bool fsync = false;  // flush the file to disk before the rename
  Env* env = nullptr;  // every file operation of the writer (env.hpp); null: default_env()
  // A distance table (DTW, DTC) of a non-symmetric material keeps only the
  // side to move whose blocks compress smaller (the other side's entries
  // become don't care: TableHeader::stored_side).  Ignored for WDL tables
  // and symmetric materials.  The choice depends only on the codes.  Cost:
  // every block is written to a scratch file first and copied into the
  // table by finish() (the kept half's compressed bytes are written twice).
  // A header that names a side keeps that side the same way.
  bool keep_smaller_side = false;
};

// Writes codes[slot] for every slot to `path`: first to a temporary file in
// the same directory, renamed over `path` only when complete.  The bytes
// depend only on the header's fields and the codes (not on threads).  Any
// code may be kDontCareCode (see there).
Status write_table(const std::filesystem::path& path, const TableHeader& header,
                   std::span<const std::uint16_t> codes, const WriteOptions& options = {});

// A table written as its codes arrive, in slot order, without holding the
// table in memory (leveldb's TableBuilder): add() codes in any portions
// (kDontCareCode allowed), then finish().  Full blocks are encoded (in
// parallel, a batch at a time) and appended to a temporary file in the same
// directory; finish() writes the index, the header and the trailer and
// renames the file into place.  WdlRun needs the whole table's symbol counts
// for its code: its blocks' symbols go to a second temporary file first, and
// finish() codes them into the table file, a batch of blocks (up to 4096,
// 8 MiB of symbols) per read, coding by `threads` and write (about 1 byte
// per 30 slots of extra I/O).  WdlRun blocks are parsed by dynamic programming (FORMAT.md
// 3.5): about 50 steps per slot.  Destroying a builder that did not finish removes its
// temporary files.  The bytes equal write_table()'s for the same header and
// codes, whatever the portions and thread count.
// Memory: about (threads * 4) blocks of codes and their encoded bytes
// (WdlRun: and 5 bytes per slot of a block per thread for the parse, and at
// finish() a batch's symbols and coded bytes: a few MiB), and 12 bytes
// per block (offsets and symbol counts for the index).
// Not thread-safe (one builder per thread); uses `threads` OpenMP threads.
class TableBuilder {
 public:
  static Expected<std::unique_ptr<TableBuilder>> create(const std::filesystem::path& path, const TableHeader& header,
                                                        const WriteOptions& options = {});
  ~TableBuilder();
  TableBuilder(const TableBuilder&) = delete;
  TableBuilder& operator=(const TableBuilder&) = delete;

  // Appends the codes of the next slots.  Fails (and stays failed) on an I/O
  // error or when more codes than header.slots are given.
  Status add(std::span<const std::uint16_t> codes);
  // Every slot added: completes the file and renames it to `path`.
  Status finish();
  // Bytes of the finished file (after finish()).
  std::uint64_t file_size() const;

 private:
  struct Impl;
  explicit TableBuilder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// How a TableReader reads blocks: pread per block, or a read-only memory map.
enum class FileAccess : std::uint8_t { Pread, Map };

// Errors of the reader carry a code (expected.hpp): NotFound (no such file),
// Io (the operating system failed: too many open files, EIO, no memory, ...;
// the same call may succeed later, nothing is known to be wrong with the
// file) or Corrupt (not a regular file, or a checksum, size or structure
// check failed: the file is damaged or is not a damka table).
class TableReader {
 public:
  // Checks magic, version (versions 4 and 5 are read: versions 1 to 3 are
  // refused with a message saying to regenerate the file, newer ones as newer), the header
  // checksum, the header's fields, the file size, and the index (its
  // checksum, offsets within the file), so a truncated or damaged file is
  // refused here.  Cost: one read of the header and the index (WdlRun: 9
  // bits per block of 1024 positions, else 4 bytes per block, FORMAT.md 3.2),
  // and 5 bytes of memory per block.
  // Never blocks on a FIFO or device: the file is opened without waiting and
  // refused unless it is a regular file.
  //
  // FileAccess::Map maps the file read-only after these checks, so a block
  // read is a copy from memory (no system call; the first touch of a page
  // costs a page fault).  The file must then not be truncated or rewritten in
  // place while the reader lives: reading a page cut off by truncation kills
  // the process with SIGBUS.  damka's writers replace a file by renaming a
  // new one over it, which leaves the mapped old file intact.  When mapping
  // fails the reader uses pread.
  //
  // Every file operation (open, stat, read, map) goes through `env`, which
  // must outlive the reader.
  static Expected<std::unique_ptr<TableReader>> open(const std::filesystem::path& path,
                                                     FileAccess access = FileAccess::Pread, Env& env = default_env());
  ~TableReader();
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;

  const TableHeader& header() const { return header_; }
  const std::filesystem::path& path() const { return path_; }
  std::uint64_t num_blocks() const { return header_.num_blocks; }
  // Slots held by block b (block_size, or fewer for the last block).
  std::uint64_t block_positions(std::uint64_t b) const;
  // Compressed bytes of block b (0 for a constant WdlRun block).
  std::uint64_t block_bytes(std::uint64_t b) const { return block_offset(b + 1) - block_offset(b); }

  // Whether blocks are read from a memory map (open's FileAccess::Map, and
  // the mapping succeeded).
  bool mapped() const { return map_ != nullptr; }

  // Codes of slots b*block_size ... into codes_out (resized).  Thread-safe
  // (pread or the map).  Every read from the file is checked: the block's
  // group of 64 blocks is read whole and its checksum verified, and the block
  // is decoded from those verified bytes (each thread keeps the last group it
  // verified, so reading a group's blocks in turn reads the group once); then
  // the block must decode to exactly its codes, each in range.  Before a
  // read (at most once a second) and after any mismatch or short read, the
  // file is checked against what was opened (check_unchanged): a file
  // changed on disk is reported as such (ErrorCode::Io, changed() set), never
  // decoded.  Cost (file in the page cache): a group not this thread's last:
  // one pread (or copy from the map) of the group (WdlRun: about 64 * 1024 /
  // 40 bytes; zstd blocks: 64 compressed blocks) and its XXH3; then the
  // block's decoding.
  //
  // A memory-mapped reader (FileAccess::Map) still dies with SIGBUS if the
  // file is truncated between the check and the copy: long-lived handles
  // should read with pread (Tablebase's default).
  Status read_block(std::uint64_t b, std::vector<std::uint16_t>& codes_out) const;
  // For WDL tables (max code <= 2, any encoding): block b as 2-bit codes,
  // 4 per byte, low bits first ((block_positions(b) + 3) / 4 bytes written
  // to `packed`).  The same checks as read_block; WdlRun decodes straight
  // into this form (the probe's cache keeps it).  Thread-safe.
  Status read_block_packed(std::uint64_t b, unsigned char* packed) const;
  // The code of one slot; keeps the last decompressed block per thread.
  Expected<std::uint16_t> get(std::uint64_t slot) const;
  // Reads the whole file and checks the whole-file checksum.
  Status verify_file_checksum() const;

  // Whether the file is still the one opened: same inode and device at its
  // path, same size and modification time.  An Error (ErrorCode::Io: reopen
  // the file) naming what changed, and changed() set from then on.  Cost: a
  // stat and an fstat.  Thread-safe.
  Status check_unchanged() const;
  // A change was found by check_unchanged() (by any thread).
  bool changed() const { return changed_.load(std::memory_order_acquire); }

 private:
  TableReader() = default;
  Error error(std::string_view what, ErrorCode code = ErrorCode::Other) const;
  Error read_error(std::string_view what, const Status& failed) const;
  // Block b's stored bytes into `bytes` (its group's checksum checked once).
  Status read_stored(std::uint64_t b, std::vector<unsigned char>& bytes) const;
  Status read_raw_block(std::uint64_t b, std::vector<unsigned char>& raw) const;
  std::uint64_t block_offset(std::uint64_t b) const;  // b <= num_blocks

  std::filesystem::path path_;
  Env* env_ = nullptr;
  std::unique_ptr<File> file_;
  const unsigned char* map_ = nullptr;  // the whole file, read-only (FileAccess::Map; owned by file_), or null
  std::uint64_t id_ = 0;                 // unique per reader, keys the per-thread cache
  TableHeader header_;
  std::vector<std::uint64_t> group_base_;      // groups + 1 entries (the last: end of the data)
  std::vector<std::uint64_t> group_checksum_;  // XXH3-64 of each group's bytes
  std::vector<std::uint32_t> block_rel_;       // block offsets from their group's base
  std::vector<std::int8_t> block_constant_;    // WdlRun: a constant block's code (0..2), else -1
  // What was opened (check_unchanged): device, inode, size, mtime.
  FileInfo opened_;
  mutable std::atomic<std::int64_t> next_check_ns_{0};  // steady clock
  mutable std::atomic<bool> changed_{false};
  // Checks check_unchanged() when a second has passed since the last check.
  Status check_unchanged_now_and_then() const;
  std::shared_ptr<const void> code_;           // WdlRun: the Huffman code (table_layout::RunCode)
};

// The codes of slots [first, first + n) of `reader` into `out` (replaced),
// block by block; `block` is scratch (kept between calls to save
// allocations).  first + n <= the table's slots.  Errors: as read_block.
// Cost: a read and decode of each block the range touches.  Thread-safe as
// read_block (per-call buffers).
Status read_slots(const TableReader& reader, std::uint64_t first, std::uint64_t n, std::vector<std::uint16_t>& out,
                  std::vector<std::uint16_t>& block);

// How many stored slots hold each code, by side to move: counts[side][code]
// for code 0..max_code; side 1 (Black to move) is empty for a symmetric
// material.  Derived slots (value_oracle.hpp is_derived: the side to move
// must capture; their entries mean nothing) are only counted, by side.
// A distance table (DTW, DTC) counts its drawn positions by the material's
// WDL table `wdl` (FORMAT.md 3.5: their distance entries are don't care);
// without it, a version-5 distance table is refused (version 4 stored its
// draws).  Reads (and so checks) every block of both.  Cost: decompresses
// the file(s) and one position_at() + has_capture() per slot, on the OpenMP
// default number of threads.
// A one-side distance file (TableHeader::stored_side) counts the drawn
// positions of the side it leaves out as draws and its won and lost ones
// in `unstored_*` only (their values are searched, not stored).
struct CodeCounts {
  std::vector<std::uint64_t> white_to_move, black_to_move;
  std::uint64_t derived_white_to_move = 0, derived_black_to_move = 0;
  std::uint64_t unstored_white_to_move = 0, unstored_black_to_move = 0;
};
Expected<CodeCounts> count_codes(const TableReader& reader, const TableReader* wdl = nullptr);

}  // namespace damka
