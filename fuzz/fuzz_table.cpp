// Fuzzes the table reader (header, block table, blocks, trailer): any file
// gives an error or a reader whose blocks read back codes in range, never a
// crash, hang or wrong-size result.
//
// Input: one flag byte, then the file.  With flag bit 0 set the harness
// first repairs the checksums (header, block table, each block, trailer) so
// that mutations reach the checks behind them: field validation, zstd
// frames, the value encodings.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <string>
#include <vector>

#include "damka/table_file.hpp"
#include "fuzz_common.hpp"
#include "table_layout.hpp"

namespace {

using namespace damka;
using namespace damka::table_layout;

void repair_checksums(std::vector<unsigned char>& f) {
  if (f.size() < kTableHeaderSize + kTrailerSize) return;
  const std::uint64_t nb = get_le(&f[48], 8);
  if (nb < (f.size() - kTableHeaderSize) / kBlockEntrySize && data_start(nb) <= f.size()) {
    const std::uint64_t table_end = data_start(nb);
    for (std::uint64_t b = 0; b < nb; ++b) {
      const std::uint64_t from = get_le(&f[kTableHeaderSize + b * kBlockEntrySize], 8);
      const std::uint64_t to = get_le(&f[kTableHeaderSize + (b + 1) * kBlockEntrySize], 8);  // next offset or end
      if (from >= table_end && from < to && to <= f.size())
        put_le(&f[kTableHeaderSize + b * kBlockEntrySize + 8], XXH3_64bits(&f[from], to - from), 8);
    }
    put_le(&f[64], XXH3_64bits(&f[kTableHeaderSize], block_table_bytes(nb)), 8);
  }
  put_le(&f[120], XXH3_64bits(f.data(), 120), 8);
  put_le(&f[f.size() - kTrailerSize], XXH3_64bits(f.data(), f.size() - kTrailerSize), 8);
}

// The file lives in memory (memfd), reached through its /proc/self/fd path
// like any file: no disk I/O per input.
struct Scratch {
  int fd = ::memfd_create("damka_fuzz_table", MFD_CLOEXEC);
  std::string path = "/proc/self/fd/" + std::to_string(fd);
};
const Scratch& scratch() {
  static const Scratch s;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  if (size < 1) return 0;
  std::vector<unsigned char> file(data + 1, data + size);
  if (data[0] & 1) repair_checksums(file);
  const Scratch& sc = scratch();
  if (sc.fd < 0 || ::ftruncate(sc.fd, 0) != 0) return 0;
  if (!file.empty() && ::pwrite(sc.fd, file.data(), file.size(), 0) != static_cast<ssize_t>(file.size())) return 0;
  auto reader = TableReader::open(sc.path);
  if (!reader) {
    DAMKA_FUZZ_CHECK(!reader.message().empty(), "an error without a message");
    return 0;
  }
  const TableReader& r = **reader;
  const TableHeader& h = r.header();
  DAMKA_FUZZ_CHECK(h.file_size == file.size(), "a reader for a file of another size");
  std::vector<std::uint16_t> codes;
  const std::uint64_t nb = r.num_blocks();
  const std::uint64_t picks[4] = {0, nb / 2, nb > 0 ? nb - 1 : 0, 1};
  for (std::uint64_t b : picks) {
    if (b >= nb) continue;
    if (!r.read_block(b, codes).ok()) continue;
    DAMKA_FUZZ_CHECK(codes.size() == r.block_positions(b), "a block of the wrong size");
    for (std::uint16_t c : codes) DAMKA_FUZZ_CHECK(c <= h.max_code, "a code above max_code");
    if (h.metric == Metric::WDL) {
      for (std::uint16_t c : codes) DAMKA_FUZZ_CHECK(c <= 2, "a WDL code above 2");
    }
    const std::uint64_t slot = b * h.block_size + codes.size() / 2;
    auto one = r.get(slot);
    DAMKA_FUZZ_CHECK(one.ok() && *one == codes[codes.size() / 2], "get() disagrees with read_block()");
  }
  (void)r.verify_file_checksum();
  return 0;
}
