// Tables read through a bounded block cache (cached_table.hpp).
#include "damka/cached_table.hpp"

#include <bit>
#include <vector>

#include "block_cache.hpp"
#include "damka/open_table.hpp"

namespace damka {

using cache_detail::BlockCache;
using cache_detail::BlockTable;
using cache_detail::PackedBlock;

TableCache::TableCache(std::size_t capacity_bytes) : cache_(std::make_unique<BlockCache>(capacity_bytes)) {}
TableCache::~TableCache() = default;

std::size_t TableCache::capacity() const { return cache_->capacity(); }

TableCache::Stats TableCache::stats() const {
  const BlockCache::Stats s = cache_->stats();
  return Stats{s.hits, s.misses, s.blocks, s.bytes, s.reads, s.peak_bytes};
}

CachedTable::~CachedTable() = default;

Expected<std::unique_ptr<CachedTable>> CachedTable::open(const std::filesystem::path& path, const Rules& rules,
                                                         const Material& canonical, Metric metric, TableCache& cache,
                                                         FileAccess access, Env& env) {
  auto reader = open_table(path, rules, canonical, metric, access, env);
  if (!reader) return reader.error();
  std::unique_ptr<CachedTable> t(new CachedTable);
  const TableHeader& h = (*reader)->header();
  t->block_size_ = h.block_size;
  t->block_shift_ = std::has_single_bit(h.block_size) ? std::countr_zero(h.block_size) : -1;
  t->kind_ = static_cast<std::uint8_t>(PackedBlock::kind_for(h.max_code));  // read_block checks codes against it
  t->blocks_ = std::make_unique<BlockTable>(h.num_blocks);
  t->cache_ = &cache;
  t->reader_ = std::move(*reader);
  return t;
}

bool CachedTable::cached_code(std::uint64_t slot, std::uint16_t* code) const {
  std::uint64_t block, at;
  if (block_shift_ >= 0) {
    block = slot >> block_shift_;
    at = slot & (block_size_ - 1);
  } else {
    block = slot / block_size_;
    at = slot % block_size_;
  }
  return cache_->cache_->lookup(*blocks_, block, static_cast<std::uint32_t>(at), code);
}

Status CachedTable::code(std::uint64_t slot, std::uint16_t* code) const {
  if (cached_code(slot, code)) return {};
  return read_code(slot, code);
}

Status CachedTable::read_code(std::uint64_t slot, std::uint16_t* code) const {
  BlockCache& cache = *cache_->cache_;
  const std::uint64_t block = block_shift_ >= 0 ? slot >> block_shift_ : slot / block_size_;
  const std::uint64_t at = slot - block * block_size_;
  // WDL-sized codes are decoded straight into the cache's 2-bit form.
  if (reader_->header().max_code <= 2) {
    PackedBlock pb = PackedBlock::bits2(static_cast<std::uint32_t>(reader_->block_positions(block)));
    if (Status s = reader_->read_block_packed(block, pb.data()); !s.ok()) return s;
    cache.count_read();
    *code = pb.get(static_cast<std::uint32_t>(at));
    if (cache.capacity() > 0) cache.insert(*blocks_, block, std::move(pb));
    return {};
  }
  thread_local std::vector<std::uint16_t> codes;
  if (Status s = reader_->read_block(block, codes); !s.ok()) return s;
  cache.count_read();
  *code = codes[at];
  if (cache.capacity() > 0)
    cache.insert(*blocks_, block, PackedBlock::pack(codes, static_cast<PackedBlock::Kind>(kind_)));
  return {};
}

}  // namespace damka
