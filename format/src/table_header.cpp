// Table headers: defaults, validation and the 128-byte on-disk form (FORMAT.md).
#include <xxhash.h>

#include "damka/slots.hpp"
#include "damka/table_scan.hpp"
#include "table_layout.hpp"

namespace damka {

std::string_view encoding_name(ValueEncoding e) {
  switch (e) {
    case ValueEncoding::Wdl2: return "wdl2";
    case ValueEncoding::U16: return "u16";
    case ValueEncoding::U16Planes: return "u16planes";
    case ValueEncoding::WdlRun: return "wdlrun";
  }
  return "unknown";
}

std::string_view stored_side_name(StoredSide s) {
  switch (s) {
    case StoredSide::Both: return "both";
    case StoredSide::White: return "white";
    case StoredSide::Black: return "black";
  }
  return "unknown";
}

TableHeader default_table_header(const Rules& rules, Material canonical, Metric metric, Compression compression) {
  TableHeader h;
  h.variant = rules.variant;
  h.fingerprint = rules.fingerprint();
  h.material = canonical;
  h.metric = metric;
  h.index_scheme = IndexScheme::SliceMajor;
  h.slots = canonical.is_valid() && canonical.is_canonical() ? table_slots(canonical) : 0;
  // Measured on Russian 2K1Mv1K1M (18.5M slots; see FORMAT.md, "Defaults").
  if (metric == Metric::WDL) {
    h.encoding = ValueEncoding::WdlRun;
    h.block_size = 1024;  // 9-bit block fields; an uncached probe decodes one block (FORMAT.md 6)
    h.zstd_level = 0;  // not used
  } else if (compression == Compression::Small) {
    h.encoding = ValueEncoding::U16Planes;
    h.block_size = 32768;  // Russian <= 5 pieces: 11% smaller than Fast, 5x the zstd time (FORMAT.md 6)
    h.zstd_level = 15;
  } else {
    h.encoding = ValueEncoding::U16Planes;
    h.block_size = 16384;  // with don't-care fill: 1.82x smaller than v1; level 7: 0.3% larger than 9, 1.4x faster (FORMAT.md 6)
    h.zstd_level = table_layout::kDefaultZstdLevel;
  }
  return h;
}

Status check_table_header(const TableHeader& h) {
  const auto bad = [](const std::string& why) { return Status(Error(why)); };
  if (static_cast<unsigned>(h.variant) >= all_variants().size())
    return bad("unknown variant id " + std::to_string(static_cast<unsigned>(h.variant)));
  if (static_cast<unsigned>(h.metric) > 2)
    return bad("unknown metric id " + std::to_string(static_cast<unsigned>(h.metric)));
  if (h.index_scheme != IndexScheme::SliceMajor)
    return bad("unknown index scheme " + std::to_string(static_cast<unsigned>(h.index_scheme)));
  const auto enc = static_cast<unsigned>(h.encoding);
  if (enc < 1 || enc > 4) return bad("unknown value encoding " + std::to_string(enc));
  if ((h.encoding == ValueEncoding::Wdl2 || h.encoding == ValueEncoding::WdlRun) && h.metric != Metric::WDL)
    return bad("value encoding " + std::string(encoding_name(h.encoding)) + " holds only WDL tables");
  const Material& m = h.material;
  if (!m.is_valid() || m.pieces() == 0 || m.pieces() > kMaxIndexPieces)
    return bad("invalid material (" + std::to_string(m.wm) + "," + std::to_string(m.wk) + "," +
               std::to_string(m.bm) + "," + std::to_string(m.bk) + ")");
  if (!m.is_canonical())
    return bad("material " + m.name() + " is not canonical (its table is " + m.canonical().name() + ")");
  if (h.slots != table_slots(m))
    return bad("slot count " + std::to_string(h.slots) + " does not match material " + m.name() + " (" +
               std::to_string(table_slots(m)) + ")");
  if (h.block_size == 0 || h.block_size > kMaxBlockSize)
    return bad("block size " + std::to_string(h.block_size) + " out of range 1.." + std::to_string(kMaxBlockSize));
  if (static_cast<unsigned>(h.stored_side) > 2)
    return bad("unknown stored side " + std::to_string(static_cast<unsigned>(h.stored_side)));
  if (h.stored_side != StoredSide::Both && (h.metric == Metric::WDL || h.sides() != 2))
    return bad("only distance tables of non-symmetric materials may store one side to move");
  return {};
}

Status check_table_rules(const TableHeader& h, const Rules& rules, const std::filesystem::path& file) {
  if (h.fingerprint == rules.fingerprint()) return {};
  return Error(foreign_table_message(file.empty() ? std::filesystem::path("table") : file, h, rules));
}

namespace table_layout {

HeaderBytes encode_header(const TableHeader& h, std::uint64_t index_checksum) {
  HeaderBytes b{};
  std::copy(kMagic.begin(), kMagic.end(), b.begin());
  put_le(&b[8], h.format_version, 2);
  put_le(&b[10], kTableHeaderSize, 2);
  b[12] = static_cast<unsigned char>(h.variant);
  b[13] = static_cast<unsigned char>(h.metric);
  b[14] = static_cast<unsigned char>(h.index_scheme);
  b[15] = static_cast<unsigned char>(h.encoding);
  put_le(&b[16], h.fingerprint, 8);
  b[24] = static_cast<unsigned char>(h.material.wm);
  b[25] = static_cast<unsigned char>(h.material.wk);
  b[26] = static_cast<unsigned char>(h.material.bm);
  b[27] = static_cast<unsigned char>(h.material.bk);
  b[28] = static_cast<unsigned char>(h.sides());
  b[29] = static_cast<unsigned char>(static_cast<std::int8_t>(h.zstd_level));
  put_le(&b[30], h.max_code, 2);
  put_le(&b[32], h.slots, 8);
  put_le(&b[40], h.block_size, 4);
  put_le(&b[44], kGroupBlocks, 4);
  put_le(&b[48], h.num_blocks, 8);
  put_le(&b[56], h.file_size, 8);
  put_le(&b[64], index_checksum, 8);
  b[72] = static_cast<unsigned char>(h.stored_side);
  if (h.format_version >= 7) put_le(&b[80], h.index_bytes, 8);
  put_le(&b[120], XXH3_64bits(b.data(), 120), 8);
  return b;
}

bool decode_header(const HeaderBytes& b, TableHeader& h, std::uint64_t& index_checksum, std::string& problem) {
  h = TableHeader{};
  h.format_version = static_cast<std::uint16_t>(get_le(&b[8], 2));
  if (h.format_version >= 1 && h.format_version < kOldestReadVersion) {
    problem = "format version " + std::to_string(h.format_version) +
              " is no longer read; regenerate it with `damka generate`";
    return false;
  }
  if (h.format_version > kTableFormatVersion) {
    problem = "written in a newer format (version " + std::to_string(h.format_version) +
              "; this build reads up to version " + std::to_string(kTableFormatVersion) + ")";
    return false;
  }
  if (h.format_version == 0) {
    problem = "invalid format version 0";
    return false;
  }
  if (get_le(&b[120], 8) != XXH3_64bits(b.data(), 120)) {
    problem = "header checksum mismatch (header corrupted)";
    return false;
  }
  const auto fail = [&](std::string why) {
    problem = "bad header: " + std::move(why);
    return false;
  };
  if (get_le(&b[10], 2) != kTableHeaderSize) return fail("header size " + std::to_string(get_le(&b[10], 2)));
  h.variant = static_cast<Variant>(b[12]);
  h.metric = static_cast<Metric>(b[13]);
  h.index_scheme = static_cast<IndexScheme>(b[14]);
  h.encoding = static_cast<ValueEncoding>(b[15]);
  h.fingerprint = get_le(&b[16], 8);
  h.material = Material{b[24], b[25], b[26], b[27]};
  h.zstd_level = static_cast<std::int8_t>(b[29]);
  h.max_code = static_cast<std::uint16_t>(get_le(&b[30], 2));
  h.slots = get_le(&b[32], 8);
  h.block_size = static_cast<std::uint32_t>(get_le(&b[40], 4));
  h.num_blocks = get_le(&b[48], 8);
  h.file_size = get_le(&b[56], 8);
  index_checksum = get_le(&b[64], 8);
  h.stored_side = static_cast<StoredSide>(b[72]);  // reserved (0, Both) before version 6
  if (h.format_version < 6 && b[72] != 0) return fail("reserved bytes 72..119 not zero");
  if (Status s = check_table_header(h); !s.ok()) return fail(s.message());
  if (b[28] != h.sides()) return fail("sides stored " + std::to_string(b[28]) + " does not match the material");
  if (get_le(&b[44], 4) != kGroupBlocks)
    return fail("blocks per checksum group " + std::to_string(get_le(&b[44], 4)) + " (must be " +
                std::to_string(kGroupBlocks) + ")");
  for (std::size_t i = 73; i < 120; ++i)
    if (b[i] != 0 && (h.format_version < 7 || i < 80 || i >= 88))
      return fail(h.format_version < 7 ? "reserved bytes 73..119 not zero" : "reserved bytes 73..79, 88..119 not zero");
  if (h.num_blocks != (h.slots + h.block_size - 1) / h.block_size)
    return fail("block count " + std::to_string(h.num_blocks) + " does not match slots and block size");
  if (h.encoding == ValueEncoding::Wdl2 && h.max_code > 2) return fail("wdl2 table with codes above 2");
  // The writer refuses WDL codes above 2 whatever the encoding; so does the reader.
  if (h.metric == Metric::WDL && h.max_code > 2)
    return fail("WDL table with max code " + std::to_string(h.max_code) + " (WDL codes are 0, 1, 2)");
  // The index's size: in the header from version 7 (a compact index has
  // no fixed size), else the fixed layout's.
  const std::uint64_t fixed = fixed_index_bytes(h.encoding, h.block_size, h.num_blocks);
  h.index_bytes = h.format_version >= 7 ? get_le(&b[80], 8) : fixed;
  if (compact_index(h.format_version, h.encoding)) {
    if (h.index_bytes < min_compact_index_bytes(h.num_blocks))
      return fail("index size " + std::to_string(h.index_bytes) + " smaller than its group checksums");
  } else if (h.index_bytes != fixed) {
    return fail("index size " + std::to_string(h.index_bytes) + " (must be " + std::to_string(fixed) + ")");
  }
  if (h.file_size < kTableHeaderSize + kTrailerSize || h.file_size - kTableHeaderSize - kTrailerSize < h.index_bytes)
    return fail("file size field too small");
  return true;
}

}  // namespace table_layout
}  // namespace damka
