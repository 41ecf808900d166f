// Writing table files: TableBuilder streams blocks (compressed a batch at a
// time, in parallel) to a temporary file, then writes the block table, the
// header and the trailer and renames the file into place.  write_table() is a
// builder fed with the whole table at once.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "table_layout.hpp"

#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_max_threads() { return 1; }
#endif

namespace damka {
namespace {

using Bytes = std::vector<unsigned char>;

Status write_all(int fd, const unsigned char* p, std::size_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return Error(std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
    offset += static_cast<std::uint64_t>(w);
  }
  return {};
}

bool read_all(int fd, unsigned char* p, std::size_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return true;
}

// Test-only fault injection: DAMKA_TEST_FAULT=kill-mid-write kills this
// process (SIGKILL) after the temporary file's blocks are written (before its
// header), kill-before-rename after the temporary file is complete and
// closed, so tests can check what a killed run leaves behind.  Unset in
// normal use.
void maybe_die(const char* point) {
  const char* fault = std::getenv("DAMKA_TEST_FAULT");
  if (fault != nullptr && std::strcmp(fault, point) == 0) ::kill(::getpid(), SIGKILL);
}

}  // namespace

struct TableBuilder::Impl {
  std::filesystem::path path, tmp;
  TableHeader h;
  WriteOptions options;
  int threads = 1;
  int fd = -1;
  bool failed = false, finished = false;
  std::vector<std::uint16_t> pending;  // codes not yet compressed (at most one batch)
  std::uint64_t added = 0;             // codes received
  std::uint16_t last_code = 0;         // the last code that was not kDontCareCode (its fill)
  std::uint64_t next_block = 0;
  std::uint64_t offset = 0;            // where the next block goes
  std::vector<std::uint64_t> offsets, checksums;
  std::vector<Bytes> compressed;       // one batch
  std::vector<ZSTD_CCtx*> cctx;        // one per thread

  ~Impl() {
    for (ZSTD_CCtx* c : cctx) ZSTD_freeCCtx(c);
    if (fd >= 0) ::close(fd);
    if (!finished && !tmp.empty()) ::unlink(tmp.c_str());
  }

  Status fail(const std::string& why) {
    failed = true;
    return Error(path.string() + ": cannot write table: " + why);
  }

  std::uint64_t batch_codes() const { return std::uint64_t{h.block_size} * static_cast<std::uint64_t>(threads) * 4; }

  // Compresses the whole blocks of `pending` (all of it when `last`) and
  // appends them to the file.
  Status flush(bool last) {
    using namespace table_layout;
    const std::uint64_t bs = h.block_size;
    const std::uint64_t nb = last ? (pending.size() + bs - 1) / bs : pending.size() / bs;
    if (nb == 0) return {};
    compressed.assign(nb, {});
    std::atomic<bool> bad{false};
    std::string problem;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(nb); ++b) {
      const std::uint64_t first = static_cast<std::uint64_t>(b) * bs;
      const std::uint64_t n = std::min<std::uint64_t>(bs, pending.size() - first);
#ifdef _OPENMP
      ZSTD_CCtx* c = cctx[static_cast<std::size_t>(omp_get_thread_num())];
#else
      ZSTD_CCtx* c = cctx[0];
#endif
      Bytes raw;
      Bytes& out = compressed[b];
      try {  // an exception must not leave a parallel region
        encode_block(h.encoding, std::span<const std::uint16_t>(pending).subspan(first, n), raw);
        out.resize(ZSTD_compressBound(raw.size()));
      } catch (const std::bad_alloc&) {
#pragma omp critical(damka_table_builder)
        if (!bad.exchange(true)) problem = "out of memory";
        continue;
      }
      const std::size_t got = c ? ZSTD_compressCCtx(c, out.data(), out.size(), raw.data(), raw.size(), h.zstd_level) : 0;
      if (c == nullptr || ZSTD_isError(got)) {
#pragma omp critical(damka_table_builder)
        if (!bad.exchange(true)) problem = c ? ZSTD_getErrorName(got) : "out of memory";
        continue;
      }
      out.resize(got);
    }
    if (bad) return fail("zstd compression failed: " + problem);
    for (const Bytes& b : compressed) {
      if (Status s = write_all(fd, b.data(), b.size(), offset); !s.ok()) return fail(s.message());
      offsets.push_back(offset);
      checksums.push_back(XXH3_64bits(b.data(), b.size()));
      offset += b.size();
    }
    next_block += nb;
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(nb * bs, pending.size())));
    compressed.clear();
    return {};
  }
};

TableBuilder::TableBuilder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableBuilder::~TableBuilder() = default;

Expected<std::unique_ptr<TableBuilder>> TableBuilder::create(const std::filesystem::path& path,
                                                             const TableHeader& header, const WriteOptions& options) {
  using namespace table_layout;
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->h = header;
  impl->h.format_version = kTableFormatVersion;
  impl->options = options;
  impl->threads = std::max(1, options.threads > 0 ? options.threads : omp_get_max_threads());
  TableHeader& h = impl->h;
  if (Status s = check_table_header(h); !s.ok()) return impl->fail(s.message()).error();
  if (h.zstd_level < std::max(ZSTD_minCLevel(), -127) || h.zstd_level > ZSTD_maxCLevel())
    return impl->fail("zstd level " + std::to_string(h.zstd_level) + " out of range").error();
  h.num_blocks = (h.slots + h.block_size - 1) / h.block_size;
  h.max_code = 0;
  for (int t = 0; t < impl->threads; ++t) impl->cctx.push_back(ZSTD_createCCtx());
  static std::atomic<unsigned> counter{0};
  impl->tmp = path;
  impl->tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  impl->fd = ::open(impl->tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (impl->fd < 0) {
    const std::string why = "cannot create " + impl->tmp.string() + ": " + std::strerror(errno);
    impl->tmp.clear();
    return impl->fail(why).error();
  }
  impl->offset = data_start(h.num_blocks);
  impl->offsets.reserve(h.num_blocks);
  impl->checksums.reserve(h.num_blocks);
  return std::unique_ptr<TableBuilder>(new TableBuilder(std::move(impl)));
}

Status TableBuilder::add(std::span<const std::uint16_t> codes) {
  Impl& b = *impl_;
  if (b.failed || b.finished) return b.fail(b.finished ? "add() after finish()" : "an earlier write failed");
  if (codes.size() > b.h.slots - b.added)
    return b.fail("more codes than the table's " + std::to_string(b.h.slots) + " slots");
  // Don't-care slots (kDontCareCode) repeat the previous stored code (0 first).
  std::vector<std::uint16_t> filled(codes.begin(), codes.end());
  for (std::uint16_t& c : filled) c = c == kDontCareCode ? b.last_code : (b.last_code = c);
  codes = filled;
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (codes[i] > b.h.max_code) {
      if (b.h.metric == Metric::WDL && codes[i] > 2)
        return b.fail("WDL table with code " + std::to_string(codes[i]) + " at slot " + std::to_string(b.added + i) +
                      " (WDL codes are 0, 1, 2)");
      b.h.max_code = codes[i];
    }
  }
  std::size_t at = 0;
  while (at < codes.size()) {
    const std::size_t room = static_cast<std::size_t>(b.batch_codes() - b.pending.size());
    const std::size_t n = std::min(room, codes.size() - at);
    b.pending.insert(b.pending.end(), codes.begin() + static_cast<std::ptrdiff_t>(at),
                     codes.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
    b.added += n;
    if (b.pending.size() >= b.batch_codes())
      if (Status s = b.flush(false); !s.ok()) return s;
  }
  return {};
}

Status TableBuilder::finish() {
  using namespace table_layout;
  Impl& b = *impl_;
  if (b.failed || b.finished) return b.fail(b.finished ? "finish() twice" : "an earlier write failed");
  if (b.added != b.h.slots)
    return b.fail(std::to_string(b.added) + " codes given for " + std::to_string(b.h.slots) + " slots");
  if (Status s = b.flush(true); !s.ok()) return s;
  TableHeader& h = b.h;
  if (b.next_block != h.num_blocks) return b.fail("internal error: block count");
  Bytes table(block_table_bytes(h.num_blocks));
  for (std::uint64_t i = 0; i < h.num_blocks; ++i) {
    put_le(&table[i * kBlockEntrySize], b.offsets[i], 8);
    put_le(&table[i * kBlockEntrySize + 8], b.checksums[i], 8);
  }
  put_le(&table[h.num_blocks * kBlockEntrySize], b.offset, 8);
  h.file_size = b.offset + kTrailerSize;
  const HeaderBytes head = encode_header(h, XXH3_64bits(table.data(), table.size()));
  maybe_die("kill-mid-write");
  if (Status s = write_all(b.fd, head.data(), head.size(), 0); !s.ok()) return b.fail(s.message());
  if (Status s = write_all(b.fd, table.data(), table.size(), kTableHeaderSize); !s.ok()) return b.fail(s.message());

  // The whole-file checksum covers header, block table and blocks in file
  // order; the blocks are read back (they are in the page cache).
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return b.fail("out of memory");
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, head.data(), head.size());
  XXH3_64bits_update(state, table.data(), table.size());
  Bytes chunk(std::size_t{1} << 20);
  for (std::uint64_t at = data_start(h.num_blocks); at < b.offset;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), b.offset - at));
    if (!read_all(b.fd, chunk.data(), n, at)) {
      XXH3_freeState(state);
      return b.fail(std::string("cannot read back: ") + std::strerror(errno));
    }
    XXH3_64bits_update(state, chunk.data(), n);
    at += n;
  }
  std::array<unsigned char, kTrailerSize> trailer{};
  put_le(trailer.data(), XXH3_64bits_digest(state), 8);
  XXH3_freeState(state);
  std::copy(kEndMagic.begin(), kEndMagic.end(), trailer.begin() + 8);
  if (Status s = write_all(b.fd, trailer.data(), trailer.size(), b.offset); !s.ok()) return b.fail(s.message());
  if (b.options.fsync && ::fsync(b.fd) != 0) return b.fail(std::string("fsync: ") + std::strerror(errno));
  const int fd = b.fd;
  b.fd = -1;
  if (::close(fd) != 0) return b.fail(std::string("close: ") + std::strerror(errno));
  maybe_die("kill-before-rename");
  if (::rename(b.tmp.c_str(), b.path.c_str()) != 0)
    return b.fail("cannot rename " + b.tmp.string() + ": " + std::strerror(errno));
  b.finished = true;
  return {};
}

std::uint64_t TableBuilder::file_size() const { return impl_->h.file_size; }

Status write_table(const std::filesystem::path& path, const TableHeader& header, std::span<const std::uint16_t> codes,
                   const WriteOptions& options) {
  if (codes.size() != header.slots)
    return Error(path.string() + ": cannot write table: " + std::to_string(codes.size()) + " codes given for " +
                 std::to_string(header.slots) + " slots");
  auto builder = TableBuilder::create(path, header, options);
  if (!builder) return builder.error();
  if (Status s = (*builder)->add(codes); !s.ok()) return s;
  return (*builder)->finish();
}

}  // namespace damka
