// TableReader: validates a table file on open, then reads, checks and
// decompresses one block at a time with pread (thread-safe).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "table_layout.hpp"

namespace damka {
namespace {

using Bytes = std::vector<unsigned char>;

// Reads exactly n bytes at offset: 0, or the errno of a failed read, or -1
// when the file ends first.
int pread_full(int fd, unsigned char* p, std::size_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return -1;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return 0;
}

struct Dctx {
  ZSTD_DCtx* p = ZSTD_createDCtx();
  ~Dctx() { ZSTD_freeDCtx(p); }
};

// The last block decompressed by this thread (for get()).
struct BlockCache {
  std::uint64_t reader = 0;  // TableReader id; 0 = empty
  std::uint64_t block = 0;
  Bytes raw;
};

std::atomic<std::uint64_t> next_reader_id{1};

}  // namespace

Error TableReader::error(std::string_view what, ErrorCode code) const {
  return Error(path_.string() + ": " + std::string(what), code);
}

// A failed read of `what`: an I/O error (which may pass) or a file that ends
// early (changed since it was opened: corrupt).
Error TableReader::read_error(std::string_view what, int err) const {
  if (err > 0) return error("cannot read " + std::string(what) + ": " + std::strerror(err) + " (I/O error)", ErrorCode::Io);
  return error("cannot read " + std::string(what) + ": the file ends early (truncated since it was opened?)",
               ErrorCode::Corrupt);
}

TableReader::~TableReader() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<std::unique_ptr<TableReader>> TableReader::open(const std::filesystem::path& path) {
  using namespace table_layout;
  std::unique_ptr<TableReader> r(new TableReader);
  r->path_ = path;
  // O_NONBLOCK: opening a FIFO (or a device) must not wait for a writer; the
  // file type is checked right after, and regular files ignore the flag.
  r->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (r->fd_ < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return r->error(std::string("cannot open: ") + std::strerror(err), ErrorCode::NotFound);
    return r->error(std::string("cannot open: ") + std::strerror(err) + " (I/O error)", ErrorCode::Io);
  }
  struct stat st{};
  if (::fstat(r->fd_, &st) != 0)
    return r->error(std::string("cannot stat: ") + std::strerror(errno) + " (I/O error)", ErrorCode::Io);
  if (!S_ISREG(st.st_mode)) return r->error("not a regular file, not a damka table", ErrorCode::Corrupt);
  if (const int flags = ::fcntl(r->fd_, F_GETFL); flags >= 0) ::fcntl(r->fd_, F_SETFL, flags & ~O_NONBLOCK);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) return r->error("empty file (0 bytes), not a damka table", ErrorCode::Corrupt);

  HeaderBytes head{};
  const std::size_t head_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(size, kTableHeaderSize));
  if (int err = pread_full(r->fd_, head.data(), head_bytes, 0)) return r->read_error("the header", err);
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

  // The block table fits in the file (decode_header checked file_size).
  Bytes table(block_table_bytes(h.num_blocks));
  if (int err = pread_full(r->fd_, table.data(), table.size(), kTableHeaderSize))
    return r->read_error("the block table", err);
  if (XXH3_64bits(table.data(), table.size()) != table_checksum)
    return r->error("block table checksum mismatch (corrupted)", ErrorCode::Corrupt);
  r->offsets_.resize(h.num_blocks + 1);
  r->checksums_.resize(h.num_blocks);
  for (std::uint64_t b = 0; b < h.num_blocks; ++b) {
    r->offsets_[b] = get_le(&table[b * kBlockEntrySize], 8);
    r->checksums_[b] = get_le(&table[b * kBlockEntrySize + 8], 8);
  }
  r->offsets_[h.num_blocks] = get_le(&table[h.num_blocks * kBlockEntrySize], 8);
  if (r->offsets_.front() != data_start(h.num_blocks) || r->offsets_.back() != h.file_size - kTrailerSize)
    return r->error("block table does not span the data section (corrupted)", ErrorCode::Corrupt);
  for (std::uint64_t b = 0; b < h.num_blocks; ++b)
    if (r->offsets_[b + 1] <= r->offsets_[b])
      return r->error("block table offsets out of order (corrupted)", ErrorCode::Corrupt);

  std::array<unsigned char, kTrailerSize> trailer{};
  if (int err = pread_full(r->fd_, trailer.data(), trailer.size(), h.file_size - kTrailerSize))
    return r->read_error("the trailer", err);
  if (!std::equal(kEndMagic.begin(), kEndMagic.end(), trailer.begin() + 8))
    return r->error("bad end marker (truncated or corrupted)", ErrorCode::Corrupt);
  r->id_ = next_reader_id.fetch_add(1);
  return r;
}

std::uint64_t TableReader::block_positions(std::uint64_t b) const {
  const std::uint64_t first = b * header_.block_size;
  return std::min<std::uint64_t>(header_.block_size, header_.slots - first);
}

Status TableReader::read_raw_block(std::uint64_t b, Bytes& raw) const {
  using namespace table_layout;
  if (b >= header_.num_blocks)
    return error("block " + std::to_string(b) + " out of range (" + std::to_string(header_.num_blocks) + " blocks)");
  thread_local Bytes packed;
  thread_local Dctx dctx;
  const std::uint64_t bytes = block_bytes(b);
  packed.resize(bytes);
  if (int err = pread_full(fd_, packed.data(), bytes, offsets_[b]))
    return read_error("block " + std::to_string(b), err);
  if (XXH3_64bits(packed.data(), bytes) != checksums_[b])
    return error("block " + std::to_string(b) + ": checksum mismatch (corrupted)", ErrorCode::Corrupt);
  if (dctx.p == nullptr) return error("zstd: out of memory", ErrorCode::Io);
  raw.resize(raw_block_bytes(header_.encoding, block_positions(b)));
  const std::size_t got = ZSTD_decompressDCtx(dctx.p, raw.data(), raw.size(), packed.data(), bytes);
  if (ZSTD_isError(got) || got != raw.size())
    return error("block " + std::to_string(b) + ": bad compressed data" +
                     (ZSTD_isError(got) ? std::string(" (") + ZSTD_getErrorName(got) + ")" : std::string()),
                 ErrorCode::Corrupt);
  return {};
}

Status TableReader::read_block(std::uint64_t b, std::vector<std::uint16_t>& codes_out) const {
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
    if (Status s = read_raw_block(b, cache.raw); !s.ok()) return s.error();
    cache.reader = id_;
    cache.block = b;
  }
  const std::uint16_t code = table_layout::decode_one(header_.encoding, cache.raw, block_positions(b),
                                                      slot % header_.block_size);
  if (code > header_.max_code)
    return error("slot " + std::to_string(slot) + ": code out of range (corrupted)", ErrorCode::Corrupt);
  return code;
}

Status TableReader::verify_file_checksum() const {
  using namespace table_layout;
  const std::uint64_t end = header_.file_size - kTrailerSize;
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return error("out of memory", ErrorCode::Io);
  XXH3_64bits_reset(state);
  Bytes buf(static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{1} << 20, end)));  // no larger than the file
  int err = 0;
  for (std::uint64_t at = 0; err == 0 && at < end;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), end - at));
    err = pread_full(fd_, buf.data(), n, at);
    if (err == 0) XXH3_64bits_update(state, buf.data(), n);
    at += n;
  }
  const std::uint64_t digest = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  unsigned char stored[8];
  if (err == 0) err = pread_full(fd_, stored, 8, end);
  if (err != 0) return read_error("the file (checksum check)", err);
  if (get_le(stored, 8) != digest) return error("file checksum mismatch (corrupted)", ErrorCode::Corrupt);
  return {};
}

}  // namespace damka
