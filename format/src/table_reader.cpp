// TableReader: validates a table file on open, then reads, checks and
// decodes one block at a time with pread or from a read-only map (thread-safe).
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <new>

#include "table_layout.hpp"

namespace damka {
namespace {

using Bytes = std::vector<unsigned char>;

struct Dctx {
  ZSTD_DCtx* p = ZSTD_createDCtx();
  ~Dctx() { ZSTD_freeDCtx(p); }
};

// The last block decoded by this thread (for get()).
struct BlockCache {
  std::uint64_t reader = 0;  // TableReader id; 0 = empty
  std::uint64_t block = 0;
  std::vector<std::uint16_t> codes;
};

const table_layout::RunCode& run_code(const std::shared_ptr<const void>& p) {
  return *static_cast<const table_layout::RunCode*>(p.get());
}

std::atomic<std::uint64_t> next_reader_id{1};

}  // namespace

Error TableReader::error(std::string_view what, ErrorCode code) const {
  return Error(path_.string() + ": " + std::string(what), code);
}

// A failed read of `what` (File::read's error): an I/O error (which may
// pass) or a file that ends early (changed since it was opened: corrupt).
Error TableReader::read_error(std::string_view what, const Status& failed) const {
  if (failed.code() != ErrorCode::Corrupt)
    return error("cannot read " + std::string(what) + ": " + failed.message() + " (I/O error)", ErrorCode::Io);
  return error("cannot read " + std::string(what) + ": the file ends early (truncated since it was opened?)",
               ErrorCode::Corrupt);
}

TableReader::~TableReader() = default;

Expected<std::unique_ptr<TableReader>> TableReader::open(const std::filesystem::path& path, FileAccess access,
                                                         Env& env) {
  using namespace table_layout;
  std::unique_ptr<TableReader> r(new TableReader);
  r->path_ = path;
  r->env_ = &env;
  // The Env opens without waiting on a FIFO or device; the file type is
  // checked right after.
  auto opened = env.open_read(path);
  if (!opened) {
    if (opened.code() == ErrorCode::NotFound) return r->error("cannot open: " + opened.message(), ErrorCode::NotFound);
    return r->error("cannot open: " + opened.message() + " (I/O error)", ErrorCode::Io);
  }
  r->file_ = std::move(*opened);
  auto st = r->file_->info();
  if (!st) return r->error("cannot stat: " + st.message() + " (I/O error)", ErrorCode::Io);
  if (!st->regular) return r->error("not a regular file, not a damka table", ErrorCode::Corrupt);
  r->opened_ = *st;
  const std::uint64_t size = st->size;
  if (size == 0) return r->error("empty file (0 bytes), not a damka table", ErrorCode::Corrupt);

  HeaderBytes head{};
  const std::size_t head_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(size, kTableHeaderSize));
  if (Status s = r->file_->read(0, head_bytes, head.data()); !s.ok()) return r->read_error("the header", s);
  if (!std::equal(kMagic.begin(), kMagic.begin() + std::min<std::size_t>(head_bytes, kMagic.size()), head.begin()))
    return r->error("not a damka table (bad magic)", ErrorCode::Corrupt);
  if (size < kTableHeaderSize)
    return r->error("truncated: " + std::to_string(size) + " bytes, shorter than the " +
                        std::to_string(kTableHeaderSize) + "-byte header",
                    ErrorCode::Corrupt);
  std::uint64_t table_checksum = 0;
  std::string problem;
  if (!decode_header(head, r->header_, table_checksum, problem)) return r->error(problem, ErrorCode::Corrupt);
  const TableHeader& h = r->header_;
  if (size < h.file_size)
    return r->error("truncated: " + std::to_string(size) + " bytes, the header says " + std::to_string(h.file_size),
                    ErrorCode::Corrupt);
  if (size > h.file_size)
    return r->error(std::to_string(size) + " bytes, the header says " + std::to_string(h.file_size) +
                        " (extra bytes at the end)",
                    ErrorCode::Corrupt);

  // The index fits in the file (decode_header checked file_size).  Its
  // arrays take some bytes a block: a compact index may claim up to 8
  // blocks per byte of the file, so memory can run out on a hostile one.
  ParsedIndex parsed;
  try {
    Bytes index(h.index_bytes);
    if (Status s = r->file_->read(kTableHeaderSize, index.size(), index.data()); !s.ok())
      return r->read_error("the index", s);
    if (XXH3_64bits(index.data(), index.size()) != table_checksum)
      return r->error("index checksum mismatch (corrupted)", ErrorCode::Corrupt);
    if (std::string problem = parse_index(h, index, parsed); !problem.empty())
      return r->error(problem, ErrorCode::Corrupt);
  } catch (const std::bad_alloc&) {
    return r->error("out of memory for the index (" + std::to_string(h.num_blocks) + " blocks)", ErrorCode::Io);
  }
  r->group_base_ = std::move(parsed.group_base);
  r->group_checksum_ = std::move(parsed.group_checksum);
  r->block_rel_ = std::move(parsed.block_rel);
  r->block_constant_ = std::move(parsed.block_constant);
  r->code_ = std::move(parsed.code);

  std::array<unsigned char, kTrailerSize> trailer{};
  if (Status s = r->file_->read(h.file_size - kTrailerSize, trailer.size(), trailer.data()); !s.ok())
    return r->read_error("the trailer", s);
  if (!std::equal(kEndMagic.begin(), kEndMagic.end(), trailer.begin() + 8))
    return r->error("bad end marker (truncated or corrupted)", ErrorCode::Corrupt);
  if (access == FileAccess::Map) r->map_ = r->file_->map(h.file_size);  // null: read instead
  r->id_ = next_reader_id.fetch_add(1);
  return r;
}

std::uint64_t TableReader::block_positions(std::uint64_t b) const {
  const std::uint64_t first = b * header_.block_size;
  return std::min<std::uint64_t>(header_.block_size, header_.slots - first);
}

std::uint64_t TableReader::block_offset(std::uint64_t b) const {
  using table_layout::kGroupBlocks;
  if (b == header_.num_blocks) return group_base_.back();
  return group_base_[b / kGroupBlocks] + block_rel_[b];
}

Status TableReader::check_unchanged() const {
  std::string what;
  if (auto now = file_->info(); !now) {
    what = "cannot stat: " + now.message();
  } else {
    if (now->size != opened_.size)
      what = "its size is " + std::to_string(now->size) + " bytes, was " + std::to_string(opened_.size);
    else if (now->mtime_ns != opened_.mtime_ns)
      what = "it was written to";
    else if (auto at_path = env_->stat(path_); !at_path)
      what = at_path.code() == ErrorCode::NotFound ? std::string("it was removed") : "cannot stat its path: " + at_path.message();
    else if (at_path->inode != opened_.inode || at_path->device != opened_.device)
      what = "another file was put in its place";
  }
  if (what.empty()) return {};
  changed_.store(true, std::memory_order_release);
  return error("changed on disk since it was opened (" + what + "): reopen the tables", ErrorCode::Io);
}

Status TableReader::check_unchanged_now_and_then() const {
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  std::int64_t next = next_check_ns_.load(std::memory_order_relaxed);
  if (now < next && !changed()) return {};
  // One thread checks; the others go on until the next second.
  if (!changed() && !next_check_ns_.compare_exchange_strong(next, now + 1000000000, std::memory_order_relaxed))
    return {};
  return check_unchanged();
}

Status TableReader::read_stored(std::uint64_t b, Bytes& bytes) const {
  using table_layout::kGroupBlocks;
  if (b >= header_.num_blocks)
    return error("block " + std::to_string(b) + " out of range (" + std::to_string(header_.num_blocks) + " blocks)");
  if (Status s = check_unchanged_now_and_then(); !s.ok()) return s;
  const std::uint64_t g = b / kGroupBlocks;
  const std::uint64_t base = group_base_[g], span = group_base_[g + 1] - base;
  const std::uint64_t from = block_offset(b), n = block_offset(b + 1) - from;
  // The group this thread verified last: its bytes are decoded, never the
  // file's again (which may have changed since).
  struct VerifiedGroup {
    std::uint64_t reader = 0, group = 0;
    Bytes bytes;
  };
  thread_local VerifiedGroup last;
  if (last.reader != id_ || last.group != g) {
    last.reader = 0;
    last.bytes.resize(span);
    if (map_ != nullptr) {
      if (span > 0) std::memcpy(last.bytes.data(), map_ + base, span);
    } else if (Status s = file_->read(base, span, last.bytes.data()); !s.ok()) {
      if (Status c = check_unchanged(); !c.ok()) return c;  // truncated under us: say so
      return read_error("block " + std::to_string(b), s);
    }
    if (XXH3_64bits(last.bytes.data(), span) != group_checksum_[g]) {
      if (Status c = check_unchanged(); !c.ok()) return c;  // written to under us: say so
      return error("blocks " + std::to_string(g * kGroupBlocks) + ".." +
                       std::to_string(std::min<std::uint64_t>((g + 1) * kGroupBlocks, header_.num_blocks) - 1) +
                       ": checksum mismatch (corrupted)",
                   ErrorCode::Corrupt);
    }
    last.reader = id_;
    last.group = g;
  }
  bytes.assign(last.bytes.begin() + static_cast<std::ptrdiff_t>(from - base),
               last.bytes.begin() + static_cast<std::ptrdiff_t>(from - base + n));
  return {};
}

Status TableReader::read_raw_block(std::uint64_t b, Bytes& raw) const {
  using namespace table_layout;
  thread_local Bytes packed;
  thread_local Dctx dctx;
  if (Status s = read_stored(b, packed); !s.ok()) return s;
  if (dctx.p == nullptr) return error("zstd: out of memory", ErrorCode::Io);
  raw.resize(raw_block_bytes(header_.encoding, block_positions(b)));
  const std::size_t got = ZSTD_decompressDCtx(dctx.p, raw.data(), raw.size(), packed.data(), packed.size());
  if (ZSTD_isError(got) || got != raw.size())
    return error("block " + std::to_string(b) + ": bad compressed data" +
                     (ZSTD_isError(got) ? std::string(" (") + ZSTD_getErrorName(got) + ")" : std::string()),
                 ErrorCode::Corrupt);
  return {};
}

Status TableReader::read_block_packed(std::uint64_t b, unsigned char* packed) const {
  using namespace table_layout;
  if (header_.max_code > 2) return error("read_block_packed: not a WDL table");
  const std::uint64_t n = b < header_.num_blocks ? block_positions(b) : 0;
  const std::uint64_t out_bytes = (n + 3) / 4;
  if (header_.encoding == ValueEncoding::WdlRun) {
    if (n != 0 && block_constant_[b] >= 0) {  // no bytes; its code checked against max code on open
      std::memset(packed, 0x55 * block_constant_[b], out_bytes);
      if (n % 4 != 0) packed[out_bytes - 1] &= static_cast<unsigned char>((1u << (2 * (n % 4))) - 1);
      return {};
    }
    thread_local Bytes stored;
    if (Status s = read_stored(b, stored); !s.ok()) return s;
    if (!run_code(code_).decode_packed(stored, n, packed))
      return error("block " + std::to_string(b) + ": bad run-length data (corrupted)", ErrorCode::Corrupt);
  } else {
    thread_local std::vector<std::uint16_t> codes;
    if (Status s = read_block(b, codes); !s.ok()) return s;
    std::memset(packed, 0, out_bytes);
    for (std::uint64_t j = 0; j < n; ++j) packed[j / 4] |= static_cast<unsigned char>(codes[j] << (2 * (j % 4)));
    return {};
  }
  if (header_.max_code >= 2) return {};  // wdlrun codes are 0..2
  // Codes above max code (0 or 1)?
  unsigned seen = 0;
  for (std::uint64_t i = 0; i < out_bytes; ++i) seen |= packed[i];
  const std::uint16_t top = (seen & 0xAA) ? 2 : (seen & 0x55) ? 1 : 0;
  if (top > header_.max_code)
    return error("block " + std::to_string(b) + ": code out of range (corrupted)", ErrorCode::Corrupt);
  return {};
}

Status TableReader::read_block(std::uint64_t b, std::vector<std::uint16_t>& codes_out) const {
  if (header_.encoding == ValueEncoding::WdlRun) {
    thread_local Bytes packed;
    packed.resize((block_positions(std::min(b, header_.num_blocks - 1)) + 3) / 4);
    if (Status s = read_block_packed(b, packed.data()); !s.ok()) return s;
    table_layout::unpack_wdl2(packed.data(), block_positions(b), codes_out);  // no code 3: checked
    return {};
  }
  thread_local Bytes raw;
  if (Status s = read_raw_block(b, raw); !s.ok()) return s;
  if (!table_layout::decode_block(header_.encoding, raw, block_positions(b), header_.max_code, codes_out))
    return error("block " + std::to_string(b) + ": code out of range (corrupted)", ErrorCode::Corrupt);
  return {};
}

Expected<std::uint16_t> TableReader::get(std::uint64_t slot) const {
  if (slot >= header_.slots)
    return error("slot " + std::to_string(slot) + " out of range (" + std::to_string(header_.slots) + " slots)");
  thread_local BlockCache cache;
  const std::uint64_t b = slot / header_.block_size;
  if (cache.reader != id_ || cache.block != b) {
    cache.reader = 0;
    if (Status s = read_block(b, cache.codes); !s.ok()) return s.error();
    cache.reader = id_;
    cache.block = b;
  }
  return cache.codes[slot % header_.block_size];
}

Status TableReader::verify_file_checksum() const {
  using namespace table_layout;
  const std::uint64_t end = header_.file_size - kTrailerSize;
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return error("out of memory", ErrorCode::Io);
  XXH3_64bits_reset(state);
  Bytes buf(static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{1} << 20, end)));  // no larger than the file
  Status failed;
  for (std::uint64_t at = 0; failed.ok() && at < end;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), end - at));
    failed = file_->read(at, n, buf.data());
    if (failed.ok()) XXH3_64bits_update(state, buf.data(), n);
    at += n;
  }
  const std::uint64_t digest = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  unsigned char stored[8];
  if (failed.ok()) failed = file_->read(end, 8, stored);
  if (!failed.ok()) return read_error("the file (checksum check)", failed);
  if (get_le(stored, 8) != digest) return error("file checksum mismatch (corrupted)", ErrorCode::Corrupt);
  return {};
}

}  // namespace damka
