// Fuzzes the table reader (header, index, blocks, trailer): any file
// gives an error or a reader whose blocks read back codes in range, never a
// crash, hang or wrong-size result.
//
// Input: one flag byte, then the file.  With flag bit 0 set the harness
// first repairs the checksums (table_layout::repair_checksums: header, index,
// each group of blocks, trailer) so that mutations reach the checks behind
// them: field validation, the codebook, zstd frames, the run-length decoder.
// With flag bit 1 set the reader maps the file (FileAccess::Map).
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <string>
#include <vector>

#include "damka/table_file.hpp"
#include "fuzz_common.hpp"
#include "table_layout.hpp"
#include "table_repair.hpp"

namespace {

using namespace damka;
using namespace damka::table_layout;

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
  // Bit 1 of the first byte: read through a memory map instead of pread.
  auto reader = TableReader::open(sc.path, (data[0] & 2) ? FileAccess::Map : FileAccess::Pread);
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
    if (h.max_code <= 2) {
      std::vector<unsigned char> packed((codes.size() + 3) / 4);
      DAMKA_FUZZ_CHECK(r.read_block_packed(b, packed.data()).ok(), "read_block_packed() fails where read_block() did not");
      for (std::size_t j = 0; j < codes.size(); ++j)
        DAMKA_FUZZ_CHECK(((packed[j / 4] >> (2 * (j % 4))) & 3) == codes[j], "read_block_packed() disagrees");
    }
  }
  (void)r.verify_file_checksum();
  return 0;
}
