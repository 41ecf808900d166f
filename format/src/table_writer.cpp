// write_table: compress the blocks (in parallel), then write header, block
// table, blocks and trailer to a temporary file and rename it into place.
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

Status compress_blocks(const TableHeader& h, std::span<const std::uint16_t> codes, int threads,
                       std::vector<Bytes>& blocks) {
  blocks.assign(h.num_blocks, {});
  std::atomic<bool> failed{false};
  std::string problem;
  const std::int64_t nb = static_cast<std::int64_t>(h.num_blocks);
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
  {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    Bytes raw;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < nb; ++b) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const std::uint64_t first = static_cast<std::uint64_t>(b) * h.block_size;
      const std::uint64_t n = std::min<std::uint64_t>(h.block_size, h.slots - first);
      table_layout::encode_block(h.encoding, codes.subspan(first, n), raw);
      Bytes& out = blocks[b];
      out.resize(ZSTD_compressBound(raw.size()));
      const std::size_t got =
          cctx ? ZSTD_compressCCtx(cctx, out.data(), out.size(), raw.data(), raw.size(), h.zstd_level) : 0;
      if (cctx == nullptr || ZSTD_isError(got)) {
        if (!failed.exchange(true)) problem = cctx ? ZSTD_getErrorName(got) : "out of memory";
        continue;
      }
      out.resize(got);
      out.shrink_to_fit();
    }
    ZSTD_freeCCtx(cctx);
  }
  if (failed) return Error("zstd compression failed: " + problem);
  return {};
}

Status write_all(int fd, const unsigned char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Error(std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return {};
}

// Test-only fault injection: DAMKA_TEST_FAULT=kill-mid-write kills this
// process (SIGKILL) after the temporary file's header is written,
// kill-before-rename after the temporary file is complete and closed, so
// tests can check what a killed run leaves behind.  Unset in normal use.
void maybe_die(const char* point) {
  const char* fault = std::getenv("DAMKA_TEST_FAULT");
  if (fault != nullptr && std::strcmp(fault, point) == 0) ::kill(::getpid(), SIGKILL);
}

}  // namespace

Status write_table(const std::filesystem::path& path, const TableHeader& header, std::span<const std::uint16_t> codes,
                   const WriteOptions& options) {
  using namespace table_layout;
  const auto fail = [&](const std::string& why) { return Status(Error(path.string() + ": cannot write table: " + why)); };
  TableHeader h = header;
  h.format_version = kTableFormatVersion;
  if (Status s = check_table_header(h); !s.ok()) return fail(s.message());
  // The level is recorded in one signed byte.
  if (h.zstd_level < std::max(ZSTD_minCLevel(), -127) || h.zstd_level > ZSTD_maxCLevel())
    return fail("zstd level " + std::to_string(h.zstd_level) + " out of range");
  if (codes.size() != h.slots)
    return fail(std::to_string(codes.size()) + " codes given for " + std::to_string(h.slots) + " slots");
  const auto top = std::max_element(codes.begin(), codes.end());
  h.max_code = top == codes.end() ? 0 : *top;
  if (h.metric == Metric::WDL && h.max_code > 2)
    return fail("WDL table with code " + std::to_string(h.max_code) + " at slot " +
                std::to_string(top - codes.begin()) + " (WDL codes are 0, 1, 2)");
  h.num_blocks = (h.slots + h.block_size - 1) / h.block_size;

  std::vector<Bytes> blocks;
  if (Status s = compress_blocks(h, codes, options.threads, blocks); !s.ok()) return fail(s.message());

  // Block table: offset and checksum of each block, then the end offset.
  Bytes table(block_table_bytes(h.num_blocks));
  std::uint64_t offset = data_start(h.num_blocks);
  for (std::uint64_t b = 0; b < h.num_blocks; ++b) {
    put_le(&table[b * kBlockEntrySize], offset, 8);
    put_le(&table[b * kBlockEntrySize + 8], XXH3_64bits(blocks[b].data(), blocks[b].size()), 8);
    offset += blocks[b].size();
  }
  put_le(&table[h.num_blocks * kBlockEntrySize], offset, 8);
  h.file_size = offset + kTrailerSize;
  const HeaderBytes head = encode_header(h, XXH3_64bits(table.data(), table.size()));

  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return fail("out of memory");
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, head.data(), head.size());
  XXH3_64bits_update(state, table.data(), table.size());
  for (const Bytes& b : blocks) XXH3_64bits_update(state, b.data(), b.size());
  std::array<unsigned char, kTrailerSize> trailer{};
  put_le(trailer.data(), XXH3_64bits_digest(state), 8);
  XXH3_freeState(state);
  std::copy(kEndMagic.begin(), kEndMagic.end(), trailer.begin() + 8);

  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot create " + tmp.string() + ": " + std::strerror(errno));
  Status s = write_all(fd, head.data(), head.size());
  if (s.ok()) maybe_die("kill-mid-write");
  if (s.ok()) s = write_all(fd, table.data(), table.size());
  for (std::size_t b = 0; s.ok() && b < blocks.size(); ++b) s = write_all(fd, blocks[b].data(), blocks[b].size());
  if (s.ok()) s = write_all(fd, trailer.data(), trailer.size());
  if (s.ok() && options.fsync && ::fsync(fd) != 0) s = Error(std::string("fsync: ") + std::strerror(errno));
  if (::close(fd) != 0 && s.ok()) s = Error(std::string("close: ") + std::strerror(errno));
  if (s.ok()) maybe_die("kill-before-rename");
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0)
    s = Error("cannot rename " + tmp.string() + ": " + std::strerror(errno));
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return fail(s.message());
  }
  return {};
}

}  // namespace damka
