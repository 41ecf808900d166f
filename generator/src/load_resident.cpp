// load_resident: see load_resident.hpp.
#include "load_resident.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <new>
#include <string>

#include "damka/movegen.hpp"
#include "damka/slots.hpp"
#include "file_successors.hpp"

namespace damka {

Expected<ResidentTables::Codes> load_resident(const Rules& rules, const std::filesystem::path& dir,
                                              const Material& canonical, Metric metric,
                                              const ResidentTables* resident, int threads, Env& env,
                                              const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                                              KeptArrays* pool) {
  threads = std::max(1, threads);
  auto source = FileSuccessors::open(rules, dir, {canonical}, metric, std::uint64_t{16} << 20, threads, resident, env);
  if (!source) return Error(canonical.name() + ": cannot load it into memory: " + source.message(), source.code());
  const MaterialIndex index(canonical);
  const std::uint64_t n = table_slots(index);
  std::shared_ptr<BigVector<std::uint16_t>> codes;
  try {
    // Not filled: the runs below write every slot.
    codes = std::make_shared<BigVector<std::uint16_t>>(n, HugePageAllocator<std::uint16_t>(pool));
  } catch (const std::bad_alloc&) {
    return Error(canonical.name() + ": cannot load it into memory: out of memory for its " + std::to_string(n) +
                     " positions (lower --memory or free memory)",
                 ErrorCode::Io);
  }
  // Slots in runs that follow the files' blocks: each thread reads its
  // blocks once from its cache.
  constexpr std::uint64_t kRun = std::uint64_t{1} << 16;
  const auto runs = static_cast<std::int64_t>((n + kRun - 1) / kRun);
  std::string error;
  ErrorCode code = ErrorCode::Other;
  std::atomic<bool> failed{false};
  std::atomic<std::uint64_t> done{0};
  if (progress) progress(0, n);
#pragma omp parallel num_threads(threads)
  {
    std::unique_ptr<FileSuccessorReader> reader;
    try {  // an exception must not leave a parallel region
      reader = (*source)->file_reader();
    } catch (const std::exception& e) {
#pragma omp critical(damka_load_resident)
      if (!failed.exchange(true)) error = e.what();
    }
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t r = 0; r < runs; ++r) {
      if (failed.load(std::memory_order_relaxed) || !reader) continue;
      const std::uint64_t first = static_cast<std::uint64_t>(r) * kRun, last = std::min(n, first + kRun);
      std::string why;
      ErrorCode why_code = ErrorCode::Other;
      try {
        SlotCursor slots(index);
        for (std::uint64_t slot = first; slot < last && why.empty(); ++slot) {
          // A capture position waits for its first reader (kLazyCode); the
          // others are read by slot.
          const Position& p = slots.at(slot);
          (*codes)[slot] = has_capture(rules, p) ? kLazyCode : reader->stored_code(canonical, p, slot);
          if (!reader->error().empty()) {
            why = reader->error();
            why_code = reader->error_code();
          }
        }
      } catch (const std::exception& e) {
        why = e.what();
      }
      if (!why.empty()) {
#pragma omp critical(damka_load_resident)
        if (!failed.exchange(true)) {
          error = why;
          code = why_code;
        }
      }
      const std::uint64_t now = done.fetch_add(last - first) + (last - first);
      if (progress && omp_get_thread_num() == 0) progress(now, n);  // the calling thread's
    }
  }
  if (failed) return Error(canonical.name() + ": cannot load it into memory: " + error, code);
  if (progress) progress(n, n);
  return ResidentTables::Codes(std::move(codes));
}

}  // namespace damka
