// Writing table files: TableBuilder streams blocks (encoded a batch at a
// time, in parallel) to a temporary file, then writes the index, the
// header and the trailer and renames the file into place.  write_table() is a
// builder fed with the whole table at once.
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include "damka/env.hpp"
#include "table_layout.hpp"

#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_max_threads() { return 1; }
#endif

namespace damka {
namespace {

using Bytes = std::vector<unsigned char>;

// A context that compresses blocks at `level` (FORMAT.md 6): at the default
// level 7, with zstd's minimum match of 5 bytes and 2^2 searches (its level 7
// row has 4 and 2^3 for blocks of up to 128 KiB), which over the Russian
// DTW/DTC blocks up to 6 pieces gives frames of the same total size 1.3x as
// fast.  Null when out of memory or a parameter is refused.
ZSTD_CCtx* block_context(int level) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  if (c == nullptr) return nullptr;
  bool ok = !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level));
  if (ok && level == table_layout::kDefaultZstdLevel)
    ok = !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, 5)) &&
         !ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_searchLog, 2));
  if (!ok) {
    ZSTD_freeCCtx(c);
    return nullptr;
  }
  return c;
}

}  // namespace

struct TableBuilder::Impl {
  std::filesystem::path path, tmp;
  TableHeader h;
  WriteOptions options;
  int threads = 1;
  Env* env = nullptr;
  std::unique_ptr<File> file;          // the temporary table file
  std::unique_ptr<File> sym_file;      // WdlRun: the blocks' symbols (unlinked scratch file)
  bool failed = false, finished = false;
  std::vector<std::uint16_t> pending;  // codes not yet encoded (at most one batch)
  std::uint64_t added = 0;             // codes received
  std::uint64_t next_block = 0;
  std::uint64_t offset = 0;            // where the next block goes (table file)
  std::uint64_t sym_offset = 0;        // where the next symbols go (scratch file)
  std::vector<std::uint64_t> offsets;  // of each block in the table file
  std::vector<std::uint32_t> sym_bytes;  // WdlRun: symbols of each block
  std::vector<std::int8_t> constant;     // WdlRun: each block's constant code (0..2), or -1
  std::vector<std::int8_t> batch_constant;  // the same for one batch
  table_layout::SymbolCounts sym_counts{};  // WdlRun: per context
  std::vector<table_layout::SymbolCounts> thread_counts;  // one batch's, per thread
  std::vector<std::uint64_t> group_sums;
  XXH3_state_t* group_state = nullptr;  // XXH3 of the current group's bytes
  std::vector<Bytes> encoded;          // one batch
  Bytes sym_batch;                     // WdlRun: one batch's symbols, written at once
  Bytes joined;                        // blocks appended with one write (append_blocks)
  std::vector<ZSTD_CCtx*> cctx;        // one per thread
  // keep_smaller_side (one_side()): every block goes to `side_file` first
  // (side_at[i] .. side_at[i + 1]); finish() keeps the smaller half.
  std::unique_ptr<File> side_file;
  std::vector<std::uint64_t> side_at{0};
  std::uint64_t side_bytes[2] = {0, 0};     // blocks wholly of White, of Black to move
  std::vector<std::uint16_t> straddling;    // the codes of the block holding both sides, if any
  int forced_keep = -1;                     // the header's stored side (0 White, 1 Black), or -1: the smaller

  ~Impl() {
    for (ZSTD_CCtx* c : cctx) ZSTD_freeCCtx(c);
    if (group_state != nullptr) XXH3_freeState(group_state);
    file.reset();
    sym_file.reset();
    side_file.reset();
    if (!finished && !tmp.empty()) (void)env->remove(tmp);
  }

  Status fail(const std::string& why) {
    failed = true;
    return Error(path.string() + ": cannot write table: " + why);
  }

  bool run_coded() const { return h.encoding == ValueEncoding::WdlRun; }
  bool compact() const { return table_layout::compact_index(h.format_version, h.encoding); }
  bool one_side() const { return side_file != nullptr; }
  // Which half block i lies in: 0 White to move, 1 Black, -1 both.
  int half_of(std::uint64_t i) const {
    const std::uint64_t half = h.slots / 2, first = i * h.block_size;
    const std::uint64_t end = std::min<std::uint64_t>(h.slots, first + h.block_size);
    return end <= half ? 0 : first >= half ? 1 : -1;
  }

  // The compressed bytes of `codes` (don't care filled) in a zstd encoding.
  Status compress(std::vector<std::uint16_t> codes, ZSTD_CCtx* c, Bytes& out) {
    table_layout::fill_dont_care(codes);
    Bytes raw;
    table_layout::encode_block(h.encoding, codes, raw);
    out.resize(ZSTD_compressBound(raw.size()));
    const std::size_t got = ZSTD_compress2(c, out.data(), out.size(), raw.data(), raw.size());
    if (ZSTD_isError(got)) return fail(std::string("encoding failed: ") + ZSTD_getErrorName(got));
    out.resize(got);
    return {};
  }

  // one_side(): keeps the half whose whole blocks compress smaller (White on
  // a tie) and appends every block to the table file: the kept half's from
  // the scratch file, the other half's as blocks of don't-care entries
  // (identical bytes for each length), the straddling block re-encoded with
  // the dropped side's entries as don't care.
  Status keep_one_side() {
    const int keep = forced_keep >= 0 ? forced_keep : side_bytes[1] < side_bytes[0] ? 1 : 0;
    h.stored_side = keep == 0 ? StoredSide::White : StoredSide::Black;
    ZSTD_CCtx* c = cctx.front();
    Bytes bytes, dropped_full, dropped_last;
    const std::uint64_t half = h.slots / 2;
    for (std::uint64_t i = 0; i < h.num_blocks; ++i) {
      const std::uint64_t first = i * h.block_size;
      const std::uint64_t n = std::min<std::uint64_t>(h.block_size, h.slots - first);
      const int side = half_of(i);
      if (side == keep) {
        bytes.resize(side_at[i + 1] - side_at[i]);
        if (Status s = side_file->read(side_at[i], bytes.size(), bytes.data()); !s.ok())
          return fail("cannot read back a block: " + s.message());
      } else if (side >= 0) {
        Bytes& d = n == h.block_size ? dropped_full : dropped_last;
        if (d.empty())
          if (Status s = compress(std::vector<std::uint16_t>(n, kDontCareCode), c, d); !s.ok()) return s;
        bytes = d;
      } else {
        std::vector<std::uint16_t> codes = straddling;
        for (std::uint64_t j = 0; j < n; ++j)
          if ((first + j < half ? 0 : 1) != keep) codes[j] = kDontCareCode;
        if (Status s = compress(std::move(codes), c, bytes); !s.ok()) return s;
      }
      if (Status s = append_block(bytes); !s.ok()) return s;
    }
    side_file.reset();
    return {};
  }
  // Codes encoded per parallel region: at least 16 blocks per thread (the
  // threads wait for the last block of a region: with 4 a thread, zstd
  // blocks of 16384 codes kept 2 threads busy 88% of the time) and 2^18
  // codes (small WdlRun blocks: a region per few blocks kept a second
  // thread waiting most of the time).
  std::uint64_t batch_codes() const {
    const std::uint64_t blocks = std::max<std::uint64_t>(static_cast<std::uint64_t>(threads) * 16,
                                                         ((std::uint64_t{1} << 18) + h.block_size - 1) / h.block_size);
    return std::uint64_t{h.block_size} * blocks;
  }

  // Appends one finished block to the table file (blocks in order), keeping
  // the group checksums.
  Status append_block(const Bytes& b) {
    if (Status s = file->write(offset, b.data(), b.size()); !s.ok()) return fail(s.message());
    note_block(b);
    return {};
  }
  // Appends finished blocks (in order) with one write: a write per block
  // was a system call per 1024 codes of a WdlRun table.
  Status append_blocks(std::span<const Bytes> blocks) {
    joined.clear();
    for (const Bytes& b : blocks) joined.insert(joined.end(), b.begin(), b.end());
    if (!joined.empty())
      if (Status s = file->write(offset, joined.data(), joined.size()); !s.ok()) return fail(s.message());
    for (const Bytes& b : blocks) note_block(b);
    return {};
  }
  // Block `b`, just written at `offset`: its offset and its group's checksum.
  void note_block(const Bytes& b) {
    using namespace table_layout;
    const std::uint64_t index = offsets.size();
    if (index % kGroupBlocks == 0) XXH3_64bits_reset(group_state);
    XXH3_64bits_update(group_state, b.data(), b.size());
    offsets.push_back(offset);
    offset += b.size();
    if ((index + 1) % kGroupBlocks == 0 || index + 1 == h.num_blocks)
      group_sums.push_back(XXH3_64bits_digest(group_state));
  }

  // Encodes the whole blocks of `pending` (all of it when `last`): zstd
  // blocks go to the table file, WdlRun symbols to the scratch file.
  Status flush(bool last) {
    std::uint64_t used = 0;
    if (Status s = encode(pending, last, used); !s.ok()) return s;
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(used));
    return {};
  }

  // Encodes the whole blocks of `src` (all of it when `last`), as flush()
  // does; `used` receives the number of codes encoded.
  Status encode(std::span<const std::uint16_t> src, bool last, std::uint64_t& used) {
    using namespace table_layout;
    const std::uint64_t bs = h.block_size;
    const std::uint64_t nb = last ? (src.size() + bs - 1) / bs : src.size() / bs;
    used = 0;
    if (nb == 0) return {};
    encoded.assign(nb, {});
    batch_constant.assign(nb, -1);
    // WdlRun: each thread counts its blocks' symbols (sums: any order).
    thread_counts.resize(static_cast<std::size_t>(threads));
    for (SymbolCounts& c : thread_counts) c = SymbolCounts{};
    std::atomic<bool> bad{false};
    std::string problem;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (std::int64_t b = 0; b < static_cast<std::int64_t>(nb); ++b) {
      const std::uint64_t first = static_cast<std::uint64_t>(b) * bs;
      const std::uint64_t n = std::min<std::uint64_t>(bs, src.size() - first);
#ifdef _OPENMP
      const auto t = static_cast<std::size_t>(omp_get_thread_num());
#else
      const std::size_t t = 0;
#endif
      ZSTD_CCtx* c = t < cctx.size() ? cctx[t] : nullptr;  // none for WdlRun
      Bytes raw;
      Bytes& out = encoded[b];
      std::size_t got = 0;
      try {  // an exception must not leave a parallel region
        const std::span<const std::uint16_t> given = src.subspan(first, n);
        if (run_coded()) {  // a constant block, or the parse (it chooses the don't-care values, FORMAT.md 3.5)
          batch_constant[b] = static_cast<std::int8_t>(constant_code(given));
          if (batch_constant[b] < 0) {
            run_symbols(given, out);
            SymbolCounts& counts = thread_counts[std::min(t, thread_counts.size() - 1)];
            int ctx = 0;
            const int contexts = run_contexts(h.format_version);
            for (unsigned char x : out) {
              ++counts[static_cast<std::size_t>(ctx)][x];
              ctx = code_context(ctx, x, contexts);
            }
          }
          continue;
        }
        std::vector<std::uint16_t> codes(given.begin(), given.end());
        fill_dont_care(codes);
        encode_block(h.encoding, codes, raw);
        out.resize(ZSTD_compressBound(raw.size()));
      } catch (const std::bad_alloc&) {
#pragma omp critical(damka_table_builder)
        if (!bad.exchange(true)) problem = "out of memory";
        continue;
      }
      got = c ? ZSTD_compress2(c, out.data(), out.size(), raw.data(), raw.size()) : 0;
      if (c == nullptr || ZSTD_isError(got)) {
#pragma omp critical(damka_table_builder)
        if (!bad.exchange(true)) problem = c ? ZSTD_getErrorName(got) : "out of memory";
        continue;
      }
      out.resize(got);
    }
    if (bad) return fail("encoding failed: " + problem);
    if (run_coded())
      for (const SymbolCounts& c : thread_counts)
        for (std::size_t k = 0; k < c.size(); ++k)
          for (std::size_t x = 0; x < c[k].size(); ++x) sym_counts[k][x] += c[k][x];
    if (one_side())
      for (std::uint64_t i = 0; i < nb; ++i)
        if (half_of(next_block + i) < 0) {
          const std::uint64_t first = i * bs;
          const std::uint64_t n = std::min<std::uint64_t>(bs, src.size() - first);
          straddling.assign(src.begin() + static_cast<std::ptrdiff_t>(first),
                            src.begin() + static_cast<std::ptrdiff_t>(first + n));
        }
    if (!one_side() && !run_coded()) {  // zstd blocks straight to the table file
      if (Status s = append_blocks(encoded); !s.ok()) return s;
    } else {
      for (std::size_t i = 0; i < encoded.size(); ++i) {
        const Bytes& b = encoded[i];
        if (one_side()) {
          if (Status s = side_file->write(side_at.back(), b.data(), b.size()); !s.ok()) return fail(s.message());
          side_at.push_back(side_at.back() + b.size());
          if (const int side = half_of(next_block + i); side >= 0) side_bytes[side] += b.size();
        } else {
          sym_batch.insert(sym_batch.end(), b.begin(), b.end());
          sym_bytes.push_back(static_cast<std::uint32_t>(b.size()));
          constant.push_back(batch_constant[i]);
        }
      }
    }
    if (!sym_batch.empty()) {  // the batch's symbols in one write
      if (Status s = sym_file->write(sym_offset, sym_batch.data(), sym_batch.size()); !s.ok()) return fail(s.message());
      sym_offset += sym_batch.size();
      sym_batch.clear();
    }
    next_block += nb;
    used = std::min<std::uint64_t>(nb * bs, src.size());
    encoded.clear();
    return {};
  }

  // WdlRun: the file's Huffman codes (`lengths`: the codebook) from the
  // symbol counts.
  Status run_code(table_layout::CodeLengths& lengths, table_layout::RunCode& code) {
    using namespace table_layout;
    const int contexts = run_contexts(h.format_version);
    lengths = context_code_lengths(sym_counts, contexts);
    if (!code.init(std::span<const std::uint8_t>(lengths.data(), 256 * static_cast<std::size_t>(contexts))))
      return fail("internal error: Huffman code");
    return {};
  }
  // WdlRun: codes every block's symbols with `code` and appends them to
  // the table file (constant blocks: no bytes).  With `fields` (a compact
  // index), only their fields are found instead: 0..2 a constant block,
  // else its bytes + 2.  A batch of blocks at a time: one read of their
  // symbols, the blocks coded by `threads`, one write.  (With a read, a
  // coding and a write per block on one thread, 4K1Mv1K1M's WDL write phase,
  // 1.06M blocks, kept one thread busy for 8.4 s; 1K3Mv3M's went from 4.22
  // to 3.85 s.)
  Status code_symbols(const table_layout::RunCode& code, std::vector<std::uint32_t>* fields) {
    constexpr std::uint64_t kBatchBytes = std::uint64_t{8} << 20;  // symbols read at once (at least one block's)
    constexpr std::size_t kBatchBlocks = 4096;
    Bytes syms;
    std::vector<std::uint64_t> at;  // block i0 + k's symbols: syms[at[k] .. at[k + 1])
    std::vector<Bytes> coded;
    std::uint64_t read_at = 0;  // in the scratch file
    for (std::size_t i0 = 0; i0 < sym_bytes.size();) {
      std::size_t i1 = i0;
      std::uint64_t bytes = 0;
      at.clear();
      while (i1 < sym_bytes.size() && i1 - i0 < kBatchBlocks && (i1 == i0 || bytes + sym_bytes[i1] <= kBatchBytes)) {
        at.push_back(bytes);
        bytes += sym_bytes[i1++];
      }
      at.push_back(bytes);
      syms.resize(bytes);
      if (Status s = sym_file->read(read_at, bytes, syms.data()); !s.ok())
        return fail("cannot read back symbols: " + s.message());
      read_at += bytes;
      const auto nb = static_cast<std::int64_t>(i1 - i0);
      const std::size_t f0 = fields != nullptr ? fields->size() : 0;
      if (fields != nullptr) fields->resize(f0 + static_cast<std::size_t>(nb));
      coded.resize(fields != nullptr ? 0 : static_cast<std::size_t>(nb));
      std::atomic<bool> no_memory{false};
#pragma omp parallel for num_threads(threads) schedule(dynamic, 256)
      for (std::int64_t k = 0; k < nb; ++k) {
        const auto u = static_cast<std::size_t>(k);
        const std::span<const unsigned char> block(syms.data() + at[u], at[u + 1] - at[u]);
        if (fields != nullptr) {
          const std::int8_t c = constant[i0 + u];
          (*fields)[f0 + u] = c >= 0 ? static_cast<std::uint32_t>(c) : static_cast<std::uint32_t>(code.encoded_bytes(block) + 2);
          continue;
        }
        try {  // an exception must not leave a parallel region
          coded[u].clear();
          code.encode(block, coded[u]);
        } catch (const std::bad_alloc&) {
          no_memory = true;
        }
      }
      if (no_memory) return fail("out of memory");
      if (fields == nullptr)
        if (Status s = append_blocks(coded); !s.ok()) return s;
      i0 = i1;
    }
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
  // Version 6 on request (for readers of older builds), else this build's.
  impl->h.format_version = header.format_version == 6 ? std::uint16_t{6} : kTableFormatVersion;
  impl->options = options;
  impl->env = &env_or_default(options.env);
  impl->threads = std::max(1, options.threads > 0 ? options.threads : omp_get_max_threads());
  TableHeader& h = impl->h;
  if (Status s = check_table_header(h); !s.ok()) return impl->fail(s.message()).error();
  if (h.encoding == ValueEncoding::WdlRun) {
    h.zstd_level = 0;
  } else if (h.zstd_level < std::max(ZSTD_minCLevel(), -127) || h.zstd_level > ZSTD_maxCLevel()) {
    return impl->fail("zstd level " + std::to_string(h.zstd_level) + " out of range").error();
  }
  h.num_blocks = (h.slots + h.block_size - 1) / h.block_size;
  h.max_code = 0;
  if (h.encoding != ValueEncoding::WdlRun)
    for (int t = 0; t < impl->threads; ++t) {
      impl->cctx.push_back(block_context(h.zstd_level));
      if (impl->cctx.back() == nullptr) return impl->fail("out of memory").error();
    }
  impl->group_state = XXH3_createState();
  if (impl->group_state == nullptr) return impl->fail("out of memory").error();
  // A fresh, unpredictable name created O_EXCL|O_NOFOLLOW (safe_file.hpp):
  // a link planted beside the table is never written through.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  auto created = impl->env->create_temp(dir, path.filename().string());
  if (!created) return impl->fail(created.message()).error();
  impl->file = std::move(created->file);
  impl->tmp = created->path;
  if (h.encoding == ValueEncoding::WdlRun) {
    // The scratch file lives only as an open descriptor.
    auto scratch = impl->env->create_temp(dir, path.filename().string() + ".sym", 0600);
    if (!scratch) return impl->fail(scratch.message()).error();
    impl->sym_file = std::move(scratch->file);
    (void)impl->env->remove(scratch->path);
  }
  // A header naming one side (checked above: a distance table of a
  // non-symmetric material) keeps that side; keep_smaller_side chooses.
  if (h.stored_side != StoredSide::Both) impl->forced_keep = h.stored_side == StoredSide::White ? 0 : 1;
  h.stored_side = StoredSide::Both;
  if ((impl->forced_keep >= 0 || options.keep_smaller_side) && h.metric != Metric::WDL && h.sides() == 2 &&
      h.encoding != ValueEncoding::WdlRun) {
    // The blocks wait in a scratch file that lives only as an open descriptor.
    auto scratch = impl->env->create_temp(dir, path.filename().string() + ".side", 0600);
    if (!scratch) return impl->fail(scratch.message()).error();
    impl->side_file = std::move(scratch->file);
    (void)impl->env->remove(scratch->path);
    impl->side_at.reserve(h.num_blocks + 1);
  }
  // A compact index's size is known at finish(), when the blocks are
  // written (WdlRun blocks wait as symbols until then).
  h.index_bytes = impl->compact() ? 0 : fixed_index_bytes(h.encoding, h.block_size, h.num_blocks);
  impl->offset = data_start(h);
  impl->offsets.reserve(h.num_blocks);
  return std::unique_ptr<TableBuilder>(new TableBuilder(std::move(impl)));
}

Status TableBuilder::add(std::span<const std::uint16_t> codes) {
  Impl& b = *impl_;
  if (b.failed || b.finished) return b.fail(b.finished ? "add() after finish()" : "an earlier write failed");
  if (codes.size() > b.h.slots - b.added)
    return b.fail("more codes than the table's " + std::to_string(b.h.slots) + " slots");
  // Don't-care slots (kDontCareCode) stay as they are until their block is
  // encoded (fill_dont_care, FORMAT.md 3.5).
  // The largest given code first, then the slot of a bad one.  Adding 1
  // (mod 2^16) maps don't care (0xFFFF) to 0 and keeps the order of the
  // others: a plain maximum, in vector registers (a scalar loop here was
  // 1.6 % of a whole `generate -n 5 -t 2`, on one thread).
  std::uint16_t top1 = 0;
  const std::uint16_t* const data = codes.data();
  const std::size_t count = codes.size();
#pragma omp simd reduction(max : top1)
  for (std::size_t i = 0; i < count; ++i) top1 = std::max(top1, static_cast<std::uint16_t>(data[i] + 1u));
  const std::uint16_t top = top1 == 0 ? 0 : static_cast<std::uint16_t>(top1 - 1);
  if (b.h.metric == Metric::WDL && top > 2)
    for (std::size_t i = 0; i < codes.size(); ++i)
      if (codes[i] > 2 && codes[i] != kDontCareCode)
        return b.fail("WDL table with code " + std::to_string(codes[i]) + " at slot " + std::to_string(b.added + i) +
                      " (WDL codes are 0, 1, 2)");
  b.h.max_code = std::max(b.h.max_code, top);
  std::size_t at = 0;
  const std::size_t batch = static_cast<std::size_t>(b.batch_codes());
  while (at < codes.size()) {
    if (b.pending.empty() && codes.size() - at >= batch) {  // a whole batch, encoded where it lies
      std::uint64_t used = 0;
      if (Status s = b.encode(codes.subspan(at, batch), false, used); !s.ok()) return s;
      at += static_cast<std::size_t>(used);
      b.added += used;
      continue;
    }
    const std::size_t room = batch - b.pending.size();
    const std::size_t n = std::min(room, codes.size() - at);
    b.pending.insert(b.pending.end(), codes.begin() + static_cast<std::ptrdiff_t>(at),
                     codes.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
    b.added += n;
    if (b.pending.size() >= batch)
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
  if (b.one_side())
    if (Status s = b.keep_one_side(); !s.ok()) return s;
  Bytes index;
  if (b.compact()) {  // fields first (the index's size), then the blocks
    CodeLengths lengths{};
    RunCode code;
    if (Status s = b.run_code(lengths, code); !s.ok()) return s;
    std::vector<std::uint32_t> fields;
    fields.reserve(h.num_blocks);
    if (Status s = b.code_symbols(code, &fields); !s.ok()) return s;
    const std::string problem = compact_index_head(
        h.block_size, std::span<const std::uint8_t>(lengths.data(), 256 * static_cast<std::size_t>(code.contexts())),
        fields, index);
    if (!problem.empty()) return b.fail(problem);
    h.index_bytes = index.size() + num_groups(h.num_blocks) * kGroupChecksumSize;
    b.offset = data_start(h);
    if (Status s = b.code_symbols(code, nullptr); !s.ok()) return s;
    if (b.offsets.size() != h.num_blocks || b.group_sums.size() != num_groups(h.num_blocks))
      return b.fail("internal error: block count");
    for (std::uint64_t i = 0; i < h.num_blocks; ++i) {  // the blocks are as long as their fields say
      const std::uint64_t bytes = (i + 1 < h.num_blocks ? b.offsets[i + 1] : b.offset) - b.offsets[i];
      if (bytes != (fields[i] < 3 ? 0 : fields[i] - 2) || bytes > max_run_block_bytes(h.block_size))
        return b.fail("internal error: block size");
    }
    for (std::uint64_t sum : b.group_sums) {
      unsigned char at[kGroupChecksumSize];
      put_le(at, sum, kGroupChecksumSize);
      index.insert(index.end(), at, at + kGroupChecksumSize);
    }
  } else {
    index.resize(h.index_bytes);
    if (b.run_coded()) {
      CodeLengths lengths{};
      RunCode code;
      if (Status s = b.run_code(lengths, code); !s.ok()) return s;
      if (Status s = b.code_symbols(code, nullptr); !s.ok()) return s;
      std::copy(lengths.begin(), lengths.begin() + kCodebookSize, index.begin());
    }
    if (b.offsets.size() != h.num_blocks || b.group_sums.size() != num_groups(h.num_blocks))
      return b.fail("internal error: block count");
    // Group table, then block table.
    const std::uint64_t ng = num_groups(h.num_blocks);
    unsigned char* groups = index.data() + codebook_bytes(h.encoding);
    unsigned char* blocks = groups + ng * kGroupEntrySize + 8;
    for (std::uint64_t g = 0; g < ng; ++g) {
      put_le(groups + g * kGroupEntrySize, b.offsets[g * kGroupBlocks], 8);
      put_le(groups + g * kGroupEntrySize + 8, b.group_sums[g], 8);
    }
    put_le(groups + ng * kGroupEntrySize, b.offset, 8);
    const int bits = block_entry_bits(h.encoding, h.block_size);
    for (std::uint64_t i = 0; i < h.num_blocks; ++i) {
      std::uint64_t field = 0;
      if (b.run_coded()) {  // 0..2 a constant block, else its bytes + 2
        const std::uint64_t end = i + 1 < h.num_blocks ? b.offsets[i + 1] : b.offset;
        field = b.constant[i] >= 0 ? static_cast<std::uint64_t>(b.constant[i]) : end - b.offsets[i] + 2;
        if (b.constant[i] < 0 && end - b.offsets[i] > max_run_block_bytes(h.block_size))
          return b.fail("internal error: block larger than the format allows");
      } else {
        field = b.offsets[i] - b.offsets[i / kGroupBlocks * kGroupBlocks];
        if (field >> 32 != 0) return b.fail("a group of blocks exceeds 4 GiB");
      }
      put_bits(blocks, i, bits, static_cast<std::uint32_t>(field));
    }
  }
  h.file_size = b.offset + kTrailerSize;
  const HeaderBytes head = encode_header(h, XXH3_64bits(index.data(), index.size()));
  if (Status s = b.file->write(0, head.data(), head.size()); !s.ok()) return b.fail(s.message());
  if (Status s = b.file->write(kTableHeaderSize, index.data(), index.size()); !s.ok()) return b.fail(s.message());

  // The whole-file checksum covers header, index and blocks in file order;
  // the blocks are read back (they are in the page cache).
  XXH3_state_t* state = XXH3_createState();
  if (state == nullptr) return b.fail("out of memory");
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, head.data(), head.size());
  XXH3_64bits_update(state, index.data(), index.size());
  Bytes chunk(std::size_t{1} << 20);
  for (std::uint64_t at = data_start(h); at < b.offset;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), b.offset - at));
    if (Status s = b.file->read(at, n, chunk.data()); !s.ok()) {
      XXH3_freeState(state);
      return b.fail("cannot read back: " + s.message());
    }
    XXH3_64bits_update(state, chunk.data(), n);
    at += n;
  }
  std::array<unsigned char, kTrailerSize> trailer{};
  put_le(trailer.data(), XXH3_64bits_digest(state), 8);
  XXH3_freeState(state);
  std::copy(kEndMagic.begin(), kEndMagic.end(), trailer.begin() + 8);
  if (Status s = b.file->write(b.offset, trailer.data(), trailer.size()); !s.ok()) return b.fail(s.message());
  if (b.options.fsync)
    if (Status s = b.file->sync(); !s.ok()) return b.fail("fsync: " + s.message());
  const std::unique_ptr<File> file = std::move(b.file);
  if (Status s = file->close(); !s.ok()) return b.fail("close: " + s.message());
  if (Status s = b.env->rename(b.tmp, b.path); !s.ok())
    return b.fail("cannot rename " + b.tmp.string() + ": " + s.message());
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
