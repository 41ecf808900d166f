// Table files: one metric of one canonical material of one variant, stored
// as fixed-size blocks of slots (see slots.hpp), each block compressed with
// zstd, found through an offset table, guarded by xxHash checksums.  The
// byte-by-byte layout is in format/FORMAT.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "damka/expected.hpp"
#include "damka/material.hpp"
#include "damka/rules.hpp"
#include "damka/value.hpp"

namespace damka {

inline constexpr std::uint16_t kTableFormatVersion = 1;  // newest version this build reads and writes
inline constexpr std::uint32_t kTableHeaderSize = 128;
inline constexpr std::uint32_t kMaxBlockSize = 1u << 24;  // positions per block
// A code given to TableBuilder::add() / write_table() for a slot whose value
// the oracle derives (value_oracle.hpp is_derived: the side to move must
// capture).  The writer stores whatever compresses best there; a reader
// returns some valid code for such a slot, and nothing may rely on it.
inline constexpr std::uint16_t kDontCareCode = 0xFFFF;

// How slots are numbered; only one scheme so far (index.hpp + slots.hpp).
enum class IndexScheme : std::uint8_t { SliceMajor = 1 };

// How a block's codes (value.hpp) are laid out before zstd.
enum class ValueEncoding : std::uint8_t {
  Wdl2 = 1,       // 2 bits per code (codes 0..2 only), 4 codes per byte, low bits first
  U16 = 2,        // 2 bytes per code, little-endian
  U16Planes = 3,  // the low bytes of the block's codes, then their high bytes
};
std::string_view encoding_name(ValueEncoding e);

struct TableHeader {
  std::uint16_t format_version = kTableFormatVersion;  // set by write_table
  Variant variant = Variant::Russian;
  std::uint64_t fingerprint = 0;  // Rules::fingerprint() of the variant
  Material material;              // canonical
  Metric metric = Metric::WDL;
  IndexScheme index_scheme = IndexScheme::SliceMajor;
  ValueEncoding encoding = ValueEncoding::Wdl2;
  std::uint64_t slots = 0;        // table_slots(material)
  std::uint32_t block_size = 0;   // positions per block (the last block may be shorter)
  int zstd_level = 0;             // used by the writer; recorded for information
  // Computed by write_table (ignored on input) and read back from the file:
  std::uint16_t max_code = 0;     // largest code in the table
  std::uint64_t num_blocks = 0;
  std::uint64_t file_size = 0;

  // 1 = White to move only (symmetric material), 2 = White then Black.
  int sides() const { return material.is_symmetric() ? 1 : 2; }
  friend bool operator==(const TableHeader&, const TableHeader&) = default;
};

// A header with this build's defaults for the metric: WDL uses Wdl2 with
// 16384 positions per block and zstd level 12; DTW and DTC use U16Planes
// with 4096 positions per block and level 9 (measurements in FORMAT.md).
TableHeader default_table_header(const Rules& rules, Material canonical, Metric metric);

// Whether a header describes a table this build can write or read
// (known enums, canonical material, slot count, block size, ...).
Status check_table_header(const TableHeader& h);

// Whether the table was built for these rules (fingerprint).  The error names
// `file`, the header's variant and the one expected (foreign_table_message).
Status check_table_rules(const TableHeader& h, const Rules& rules, const std::filesystem::path& file = {});

struct WriteOptions {
  int threads = 0;     // blocks compressed in parallel; 0 = OpenMP default
  bool fsync = false;  // flush the file to disk before the rename
};

// Writes codes[slot] for every slot to `path`: first to a temporary file in
// the same directory, renamed over `path` only when complete.  The bytes
// depend only on the header's fields and the codes (not on threads).
Status write_table(const std::filesystem::path& path, const TableHeader& header,
                   std::span<const std::uint16_t> codes, const WriteOptions& options = {});

// A table written as its codes arrive, in slot order, without holding the
// table in memory (leveldb's TableBuilder): add() codes in any portions,
// then finish().  Full blocks are compressed (in parallel, a batch at a time)
// and appended to a temporary file in the same directory; finish() writes the
// block table, the header and the trailer and renames the file into place.
// Destroying a builder that did not finish removes its temporary file.  The
// bytes equal write_table()'s for the same header and codes.
// Memory: about (threads * 4) blocks of codes and their compressed bytes.
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

// Errors of the reader carry a code (expected.hpp): NotFound (no such file),
// Io (the operating system failed: too many open files, EIO, no memory, ...;
// the same call may succeed later, nothing is known to be wrong with the
// file) or Corrupt (not a regular file, or a checksum, size or structure
// check failed: the file is damaged or is not a damka table).
class TableReader {
 public:
  // Checks magic, version (a newer version is refused), the header checksum,
  // the header's fields, the file size, and the block table (its checksum,
  // offsets within the file), so a truncated or damaged file is refused here.
  // Never blocks on a FIFO or device: the file is opened without waiting and
  // refused unless it is a regular file.
  static Expected<std::unique_ptr<TableReader>> open(const std::filesystem::path& path);
  ~TableReader();
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;

  const TableHeader& header() const { return header_; }
  const std::filesystem::path& path() const { return path_; }
  std::uint64_t num_blocks() const { return header_.num_blocks; }
  // Slots held by block b (block_size, or fewer for the last block).
  std::uint64_t block_positions(std::uint64_t b) const;
  // Compressed bytes of block b.
  std::uint64_t block_bytes(std::uint64_t b) const { return offsets_[b + 1] - offsets_[b]; }

  // Codes of slots b*block_size ... into codes_out (resized).  Thread-safe
  // (pread).  Verifies the block checksum, the decompressed size and that
  // every code is in range.
  Status read_block(std::uint64_t b, std::vector<std::uint16_t>& codes_out) const;
  // The code of one slot; keeps the last decompressed block per thread.
  Expected<std::uint16_t> get(std::uint64_t slot) const;
  // Reads the whole file and checks the whole-file checksum.
  Status verify_file_checksum() const;

 private:
  TableReader() = default;
  Error error(std::string_view what, ErrorCode code = ErrorCode::Other) const;
  Error read_error(std::string_view what, int err) const;
  Status read_raw_block(std::uint64_t b, std::vector<unsigned char>& raw) const;

  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t id_ = 0;                 // unique per reader, keys the per-thread cache
  TableHeader header_;
  std::vector<std::uint64_t> offsets_;    // num_blocks + 1 entries
  std::vector<std::uint64_t> checksums_;  // XXH3-64 of each block's bytes
};

// How many stored slots hold each code, by side to move: counts[side][code]
// for code 0..max_code; side 1 (Black to move) is empty for a symmetric
// material.  Derived slots (value_oracle.hpp is_derived: the side to move
// must capture; their entries mean nothing) are only counted, by side.
// Reads (and so checks) every block.  Cost: decompresses the file and one
// position_at() + has_capture() per slot, on the OpenMP default number of
// threads.
struct CodeCounts {
  std::vector<std::uint64_t> white_to_move, black_to_move;
  std::uint64_t derived_white_to_move = 0, derived_black_to_move = 0;
};
Expected<CodeCounts> count_codes(const TableReader& reader);

}  // namespace damka
