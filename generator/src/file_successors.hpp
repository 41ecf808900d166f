// Private to the generator: successor materials read from their finished
// table files through a small cache of decoded blocks per thread (no locks,
// no shared state after opening).
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "damka/engine.hpp"
#include "damka/table_file.hpp"

namespace damka {

class FileSuccessors : public SuccessorSource {
 public:
  // Opens `metric`'s file of every material in `materials` (canonical) under
  // `dir`; fails naming the first file that is missing or unreadable.
  static Expected<std::unique_ptr<FileSuccessors>> open(const Rules& rules, const std::filesystem::path& dir,
                                                        const std::vector<Material>& materials, Metric metric,
                                                        std::uint64_t cache_bytes_per_reader);
  std::unique_ptr<SuccessorReader> reader() const override;
  std::uint64_t reader_bytes() const override { return cache_bytes_; }

  struct Entry {
    Material canonical;
    MaterialIndex index;
    std::unique_ptr<TableReader> file;
  };

 private:
  std::vector<Entry> entries_;
  std::uint64_t cache_bytes_ = 0;
};

}  // namespace damka
