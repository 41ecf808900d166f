// The plain WDL of whole materials for the statute-aware counts' exits
// (plain_wdl_store.hpp).
#include "plain_wdl_store.hpp"

#include <algorithm>
#include <atomic>
#include <optional>

#include <omp.h>

#include "damka/statutes.hpp"
#include "damka/value_oracle.hpp"

namespace damka {

std::uint64_t PlainWdlStore::bytes_of(const Material& canonical) {
  return (table_slots(canonical) + 3) / 4;
}

Expected<std::vector<const PlainWdlStore::Table*>> PlainWdlStore::hold(const ValueSource& values,
                                                                       const std::vector<Material>& materials) {
  std::vector<const Table*> out(materials.size(), nullptr);
  ++tick_;
  auto held = [&](const Material& m) -> Table* {
    for (const auto& t : tables_)
      if (t->material == m) return t.get();
    return nullptr;
  };
  auto listed = [&](const Table& t) { return std::find(materials.begin(), materials.end(), t.material) != materials.end(); };
  // The listed tables already held stay (marked first, so that reading
  // others never drops them).
  for (std::size_t i = 0; i < materials.size(); ++i)
    if (Table* t = held(materials[i])) {
      t->used = tick_;
      out[i] = t;
    }
  for (std::size_t i = 0; i < materials.size(); ++i) {
    if (out[i]) continue;
    const Material& m = materials[i];
    const std::uint64_t need = bytes_of(m);
    if (need > capacity_) continue;
    // Room: the least recently used tables not listed go first.
    while (bytes_ + need > capacity_) {
      auto victim = tables_.end();
      for (auto it = tables_.begin(); it != tables_.end(); ++it)
        if (!listed(**it) && (victim == tables_.end() || (*it)->used < (*victim)->used)) victim = it;
      if (victim == tables_.end()) break;
      bytes_ -= bytes_of((*victim)->material);
      tables_.erase(victim);
    }
    if (bytes_ + need > capacity_) continue;
    auto slots = values.slots(m);
    if (!slots) return slots.error();
    auto t = std::make_unique<Table>(m);
    t->bits.assign(need, 0);
    t->used = tick_;
    // Ranges of whole bytes (a multiple of four slots), one thread each.
    const std::uint64_t n = table_slots(t->index);
    constexpr std::uint64_t kRange = std::uint64_t{1} << 15;
    const auto ranges = static_cast<std::int64_t>((n + kRange - 1) / kRange);
    // The lowest range that failed: ranges above it are skipped, those
    // below are still read, so the error returned is the same for any
    // number of threads.
    std::atomic<std::int64_t> lowest_failed{ranges};
    std::optional<Error> first_error;  // its error
#pragma omp parallel
    {
      SlotSource::Range r;
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t k = 0; k < ranges; ++k) {
        if (k > lowest_failed.load(std::memory_order_relaxed)) continue;
        const std::uint64_t lo = static_cast<std::uint64_t>(k) * kRange, len = std::min(kRange, n - lo);
        std::optional<Error> why;
        if (Status s = (*slots)->read(lo, len, {}, r); !s.ok()) why = s.error();
        for (std::uint64_t j = 0; j < len && !why; ++j) {
          auto v = (*slots)->value(r, j, Metric::WDL);
          if (!v) {
            why = v.error();
            break;
          }
          const std::uint64_t s = lo + j;
          t->bits[s >> 2] |= static_cast<std::uint8_t>(v->wdl_only().encode() << ((s & 3) * 2));
        }
        if (why) {
#pragma omp critical(damka_plain_wdl_store)
          if (k < lowest_failed.load(std::memory_order_relaxed)) {
            first_error = std::move(why);
            lowest_failed.store(k, std::memory_order_relaxed);
          }
        }
      }
    }
    if (first_error) return *first_error;
    bytes_ += need;
    ++reads_;
    out[i] = t.get();
    tables_.push_back(std::move(t));
  }
  return out;
}

PlainWdlView::PlainWdlView(const ValueSource& values, std::vector<const PlainWdlStore::Table*> held)
    : values_(values), held_(std::move(held)) {
  std::erase(held_, nullptr);
}

Expected<Value> PlainWdlView::wdl(const Position& q) const {
  if (q.pieces(q.side_to_move) == 0) return Value::loss(0).wdl_only();
  if (!held_.empty()) {
    const Material m = material_of(q).canonical();
    for (const PlainWdlStore::Table* t : held_)
      if (t->material == m) return Value::decode(t->code(q));
  }
  auto v = values_.value(q, Metric::WDL);
  if (!v) return v.error();
  return v->wdl_only();
}

Expected<Value> PlainWdlView::capture_wdl(const Position& p, MoveList& moves) const {
  generate_capture_moves(values_.rules(), p, moves);
  enum class Looked : std::uint8_t { Ok, Failed };
  std::optional<Error> why;
  Value v;
  const Looked s = damka::capture_wdl(p, moves, [&](const Position& q, Value& out) {
    auto w = wdl(q);
    if (!w) {
      why = w.error();
      return Looked::Failed;
    }
    out = *w;
    return Looked::Ok;
  }, v);
  if (s != Looked::Ok) return *why;
  return v;
}

}  // namespace damka
