// FileSuccessors: see file_successors.hpp.
#include "file_successors.hpp"

#include <bit>

#include "damka/slots.hpp"
#include "damka/table_paths.hpp"

namespace damka {
namespace {

// A direct-mapped cache of decoded blocks, keyed by (file, block).
class FileReader : public SuccessorReader {
 public:
  FileReader(const std::vector<FileSuccessors::Entry>& entries, std::uint64_t cache_bytes) : entries_(entries) {
    std::uint64_t largest = 4096;
    for (const auto& e : entries) largest = std::max<std::uint64_t>(largest, e.file->header().block_size);
    const std::uint64_t want = std::max<std::uint64_t>(16, cache_bytes / (largest * 2));
    bits_ = std::bit_width(want) - 1;
    lines_.resize(std::size_t{1} << bits_);
  }

  std::uint16_t code(const Position& q) override {
    if (q.pieces(q.side_to_move) == 0) return Value::loss(0).encode();
    const Material c = material_of(q).canonical();
    if (last_ < 0 || entries_[last_].canonical != c) {
      last_ = -1;
      for (std::size_t i = 0; i < entries_.size(); ++i)
        if (entries_[i].canonical == c) last_ = static_cast<int>(i);
      if (last_ < 0) {
        if (error_.empty()) error_ = "no table of successor material " + c.name() + " was opened";
        return 0;
      }
    }
    const FileSuccessors::Entry& e = entries_[last_];
    const std::uint64_t slot = locate_slot(e.index, q);
    const std::uint64_t bs = e.file->header().block_size;
    const std::uint64_t block = slot / bs;
    const std::uint64_t key = (static_cast<std::uint64_t>(last_) << 48) | block;
    Line& line = lines_[(key * 0x9E3779B97F4A7C15ull) >> (64 - bits_)];
    if (!line.valid || line.key != key) {
      line.valid = false;
      if (Status s = e.file->read_block(block, line.codes); !s.ok()) {
        if (error_.empty()) error_ = s.message();
        return 0;
      }
      line.key = key;
      line.valid = true;
    }
    return line.codes[slot - block * bs];
  }

 private:
  struct Line {
    std::uint64_t key = 0;
    bool valid = false;
    std::vector<std::uint16_t> codes;
  };
  const std::vector<FileSuccessors::Entry>& entries_;
  std::vector<Line> lines_;
  int bits_ = 4;
  int last_ = -1;
};

}  // namespace

Expected<std::unique_ptr<FileSuccessors>> FileSuccessors::open(const Rules& rules, const std::filesystem::path& dir,
                                                                const std::vector<Material>& materials, Metric metric,
                                                                std::uint64_t cache_bytes_per_reader) {
  auto fs = std::make_unique<FileSuccessors>();
  fs->cache_bytes_ = cache_bytes_per_reader;
  for (const Material& m : materials) {
    auto r = TableReader::open(table_path(dir, rules, m, metric));
    if (!r) return r.error();
    if (Status s = check_table_rules((*r)->header(), rules, (*r)->path()); !s.ok()) return s.error();
    if ((*r)->header().material != m || (*r)->header().metric != metric)
      return Error((*r)->path().string() + ": holds " + (*r)->header().material.name() + " " +
                   std::string(metric_name((*r)->header().metric)));
    fs->entries_.push_back(Entry{m, MaterialIndex(m), std::move(*r)});
  }
  return fs;
}

std::unique_ptr<SuccessorReader> FileSuccessors::reader() const {
  return std::make_unique<FileReader>(entries_, cache_bytes_);
}

}  // namespace damka
