// A table file's index (FORMAT.md 3.2): parsed and checked for the reader,
// and the compact index of version-7 wdlrun files built for the writer.
#include <zstd.h>

#include <algorithm>

#include "table_layout.hpp"

namespace damka::table_layout {
namespace {

// zstd level of the compact index's two frames: they are small (2 bytes a
// block, 9 KiB of code lengths) and read once per open.
constexpr int kIndexZstdLevel = 19;

// Decompresses exactly `size` bytes from one zstd frame, or returns false.
bool unzstd(std::span<const unsigned char> frame, std::uint64_t size, std::vector<unsigned char>& out) {
  const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (declared != size) return false;
  if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) return false;  // one frame, whole
  out.resize(size);
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  return !ZSTD_isError(got) && got == size;
}

bool zstd(std::span<const unsigned char> raw, std::vector<unsigned char>& out) {
  out.resize(ZSTD_compressBound(raw.size()));
  const std::size_t got = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), kIndexZstdLevel);
  if (ZSTD_isError(got)) return false;
  out.resize(got);
  return true;
}

// Block b's field of a wdlrun table (0..2 a constant block, f >= 3 a block
// of f - 2 bytes) into out; group offsets follow from the sizes.  Returns
// "" or the problem.
std::string wdlrun_blocks(const TableHeader& h, std::uint64_t b, std::uint32_t f, ParsedIndex& out, std::uint64_t& at) {
  out.block_rel[b] = static_cast<std::uint32_t>(at);
  if (f < 3) {
    if (f > h.max_code) return "index: constant block above the max code (corrupted)";
    out.block_constant[b] = static_cast<std::int8_t>(f);
    return {};
  }
  if (f - 2 > max_run_block_bytes(h.block_size)) return "index: block longer than its positions allow (corrupted)";
  at += f - 2;
  return {};
}

std::string parse_compact(const TableHeader& h, std::span<const unsigned char> index, ParsedIndex& out) {
  const std::uint64_t nb = h.num_blocks, ng = num_groups(nb);
  if (index.size() < min_compact_index_bytes(nb)) return "index: shorter than its group checksums (corrupted)";
  const std::uint64_t book = get_le(index.data(), 4), table = get_le(index.data() + 4, 4);
  if (kCompactIndexHead + book + table + ng * kGroupChecksumSize != index.size())
    return "index: its parts do not add up to its size (corrupted)";
  const int contexts = run_contexts(h.format_version);
  std::vector<unsigned char> lengths, fields;
  if (!unzstd(index.subspan(kCompactIndexHead, book), 256 * static_cast<std::uint64_t>(contexts), lengths))
    return "index: bad compressed codebook (corrupted)";
  const int planes = compact_field_bytes(h.block_size);
  if (!unzstd(index.subspan(kCompactIndexHead + book, table), planes * nb, fields))
    return "index: bad compressed block table (corrupted)";
  auto code = std::make_shared<RunCode>();
  if (!code->init(lengths)) return "bad Huffman code lengths in the codebook (corrupted)";
  out.code = std::move(code);
  const unsigned char* sums = index.data() + kCompactIndexHead + book + table;
  out.group_base.resize(ng + 1);
  out.group_checksum.resize(ng);
  std::uint64_t base = data_start(h);
  for (std::uint64_t g = 0; g < ng; ++g) {
    out.group_base[g] = base;
    out.group_checksum[g] = get_le(sums + g * kGroupChecksumSize, 8);
    std::uint64_t at = 0;
    const std::uint64_t last = std::min<std::uint64_t>((g + 1) * kGroupBlocks, nb);
    for (std::uint64_t b = g * kGroupBlocks; b < last; ++b) {
      std::uint32_t f = 0;
      for (int i = 0; i < planes; ++i) f |= static_cast<std::uint32_t>(fields[i * nb + b]) << (8 * i);
      if (std::string p = wdlrun_blocks(h, b, f, out, at); !p.empty()) return p;
    }
    base += at;
  }
  out.group_base[ng] = base;
  if (base != h.file_size - kTrailerSize) return "index does not span the data section (corrupted)";
  return {};
}

}  // namespace

std::string parse_index(const TableHeader& h, std::span<const unsigned char> index, ParsedIndex& out) {
  out = ParsedIndex{};
  const std::uint64_t nb = h.num_blocks, ng = num_groups(nb);
  const bool run = h.encoding == ValueEncoding::WdlRun;
  out.block_rel.resize(nb);
  if (run) out.block_constant.assign(nb, -1);
  if (compact_index(h.format_version, h.encoding)) return parse_compact(h, index, out);
  if (index.size() != fixed_index_bytes(h.encoding, h.block_size, nb)) return "index: wrong size (corrupted)";
  if (run) {
    auto code = std::make_shared<RunCode>();
    if (!code->init(index.first(kCodebookSize))) return "bad Huffman code lengths in the codebook (corrupted)";
    out.code = std::move(code);
  }
  const unsigned char* groups = index.data() + codebook_bytes(h.encoding);
  const unsigned char* blocks = groups + ng * kGroupEntrySize + 8;
  out.group_base.resize(ng + 1);
  out.group_checksum.resize(ng);
  for (std::uint64_t g = 0; g < ng; ++g) {
    out.group_base[g] = get_le(groups + g * kGroupEntrySize, 8);
    out.group_checksum[g] = get_le(groups + g * kGroupEntrySize + 8, 8);
  }
  out.group_base[ng] = get_le(groups + ng * kGroupEntrySize, 8);
  if (out.group_base.front() != data_start(h) || out.group_base.back() != h.file_size - kTrailerSize)
    return "index does not span the data section (corrupted)";
  const int bits = block_entry_bits(h.encoding, h.block_size);
  if (const std::uint64_t used = nb * static_cast<std::uint64_t>(bits); used % 8 != 0 && (blocks[used / 8] >> (used % 8)) != 0)
    return "index: padding bits of the block table set (corrupted)";
  for (std::uint64_t g = 0; g < ng; ++g) {
    const std::uint64_t first = g * kGroupBlocks, last = std::min<std::uint64_t>(first + kGroupBlocks, nb);
    // wdlrun groups may be empty (all blocks constant); others hold >= 1 byte a block.
    if (out.group_base[g + 1] < out.group_base[g] + (run ? 0 : 1)) return "index: group offsets out of order (corrupted)";
    const std::uint64_t span = out.group_base[g + 1] - out.group_base[g];
    if (run) {
      std::uint64_t at = 0;
      for (std::uint64_t b = first; b < last; ++b)
        if (std::string p = wdlrun_blocks(h, b, get_bits(blocks, b, bits), out, at); !p.empty()) return p;
      if (at != span) return "index: block sizes do not add up to their group's (corrupted)";
      continue;
    }
    for (std::uint64_t b = first; b < last; ++b) out.block_rel[b] = get_bits(blocks, b, bits);
    if (out.block_rel[first] != 0) return "index: group offsets out of order (corrupted)";
    for (std::uint64_t b = first + 1; b < last; ++b)
      if (out.block_rel[b] <= out.block_rel[b - 1] || out.block_rel[b] >= span)
        return "index: block offsets out of order (corrupted)";
  }
  return {};
}

std::string compact_index_head(std::uint32_t block_size, std::span<const std::uint8_t> lengths,
                               std::span<const std::uint32_t> fields, std::vector<unsigned char>& out) {
  const std::uint64_t nb = fields.size();
  const int n = compact_field_bytes(block_size);
  std::vector<unsigned char> planes(static_cast<std::size_t>(n) * nb), book, table;
  for (std::uint64_t b = 0; b < nb; ++b) {
    if (fields[b] >> (8 * n) != 0) return "a block field too large for the block size";
    for (int i = 0; i < n; ++i) planes[i * nb + b] = static_cast<unsigned char>(fields[b] >> (8 * i));
  }
  if (!zstd(lengths, book) || !zstd(planes, table)) return "zstd failed on the index";
  out.assign(kCompactIndexHead, 0);
  put_le(out.data(), book.size(), 4);
  put_le(out.data() + 4, table.size(), 4);
  out.insert(out.end(), book.begin(), book.end());
  out.insert(out.end(), table.begin(), table.end());
  return {};
}

}  // namespace damka::table_layout
