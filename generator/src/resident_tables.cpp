// ResidentTables: see resident_tables.hpp.
#include "resident_tables.hpp"

#include <algorithm>
#include <cassert>

#include "damka/slots.hpp"
#include "damka/solver.hpp"

namespace damka {

ResidentTables::ResidentTables(std::vector<Material> order, std::vector<bool> build)
    : order_(std::move(order)), build_(std::move(build)) {
  assert(order_.size() == build_.size());
  for (std::size_t j = 0; j < order_.size(); ++j) at_[order_[j]] = j;
  for (std::size_t j = 0; j < order_.size(); ++j)
    if (build_[j])
      for (const Material& s : successors(order_[j])) readers_[s].push_back(j);
}

bool ResidentTables::needed_from(std::size_t from, const Material& m) const {
  const auto it = readers_.find(m);
  return it != readers_.end() && it->second.back() >= from;
}

std::uint64_t ResidentTables::bytes_of(std::size_t i) const {
  const std::uint64_t bytes = table_slots(order_[i]) * sizeof(std::uint16_t);
  return bytes < kHugeFrom ? bytes : (bytes + kHugePage - 1) / kHugePage * kHugePage;  // as huge_alloc takes it
}

void ResidentTables::make_room(std::size_t i, std::uint64_t need, std::uint64_t budget, std::uint64_t want) {
  std::erase_if(tables_, [&](const Table& t) {
    if (needed_from(i, t.canonical)) return false;
    bytes_ -= t.bytes;
    return true;
  });
  const std::vector<Material> read = successors(order_[i]);
  const auto reads = [&](const Table& t) { return std::find(read.begin(), read.end(), t.canonical) != read.end(); };
  // The tables order[i] does not read go first, until `want` more is free
  // too; then any.  Russian -n 7, all metrics, --memory 16G: dropping the
  // largest first dropped 3K1Mv2K1M's four largest capture tables (6-piece,
  // 482M positions) for tables only later materials read, and its units,
  // reading those through their files (a search for every capture position
  // and unstored side: 30% of its samples), took 520 s against 232 s in the
  // WDL run (2.2x; the other 7-piece materials 1.3-1.8x).
  for (const bool spare_read : {true, false}) {
    const std::uint64_t target = need + (spare_read ? want : 0);
    while (bytes_ + target > budget) {
      // The largest goes first (the earliest built among equals): it frees
      // the most for the fewest tables read from files again.
      auto largest = tables_.end();
      for (auto it = tables_.begin(); it != tables_.end(); ++it)
        if (!(spare_read && reads(*it)) && (largest == tables_.end() || it->bytes > largest->bytes)) largest = it;
      if (largest == tables_.end()) break;
      bytes_ -= largest->bytes;
      // Still read by a material to build: its true codes go to a saved file
      // (a load from its table files resolves every capture position it reads
      // by a search again: 4Kv1K2M's units took 1.4x as long).
      if (save_dropped_) {
        saved_.insert(largest->canonical);
        if (largest->codes != nullptr) dropped_.emplace_back(largest->canonical, std::move(largest->codes));
      }
      tables_.erase(largest);
    }
  }
}

bool ResidentTables::keep(std::size_t i, std::uint64_t need, std::uint64_t budget) const {
  return build_[i] && needed_from(i + 1, order_[i]) && bytes_ + bytes_of(i) + need <= budget;
}

std::vector<std::size_t> ResidentTables::to_load(std::size_t i, std::uint64_t room) const {
  std::vector<std::size_t> cand;
  for (const Material& s : successors(order_[i])) {
    const auto at = at_.find(s);
    if (at == at_.end() || holds(s)) continue;
    // Present: an earlier run's files, or this run's where order[i]
    // converts into it by captures (fewer pieces: read for about every
    // capture position; built before order[i], build_before).  This run's
    // promotion successors (as many pieces) stay in their files: loading
    // 3K1Mv3K (824M positions, 13.5 s) for 2K2Mv3K left its units no faster.
    if (build_[at->second] && s.pieces() >= order_[i].pieces()) continue;
    // The positions still to build that read it.
    std::uint64_t users = 0;
    if (const auto r = readers_.find(s); r != readers_.end())
      for (std::size_t j : r->second)
        if (j >= i) users += table_slots(order_[j]);
    if (table_slots(s) <= users) cand.push_back(at->second);
  }
  std::stable_sort(cand.begin(), cand.end(), [&](std::size_t a, std::size_t b) { return bytes_of(a) < bytes_of(b); });
  std::vector<std::size_t> out;
  for (std::size_t j : cand) {
    if (bytes_of(j) > room) break;
    room -= bytes_of(j);
    out.push_back(j);
  }
  return out;
}

std::uint64_t ResidentTables::capture_bytes(std::size_t i, bool missing) const {
  std::uint64_t bytes = 0;
  for (const Material& s : successors(order_[i]))
    if (const auto at = at_.find(s); at != at_.end() && s.pieces() < order_[i].pieces() && !(missing && holds(s)))
      bytes += bytes_of(at->second);
  return bytes;
}

std::uint64_t ResidentTables::saved_bytes(std::size_t from) const {
  std::uint64_t bytes = 0;
  for (const Material& m : saved_)
    if (needed_from(from, m)) bytes += table_slots(m) * sizeof(std::uint16_t);
  return bytes;
}

std::vector<std::pair<Material, ResidentTables::Codes>> ResidentTables::take_dropped() {
  std::vector<std::pair<Material, Codes>> out;
  out.swap(dropped_);
  return out;
}

bool ResidentTables::holds(const Material& canonical) const {
  for (const Table& t : tables_)
    if (t.canonical == canonical) return true;
  return false;
}

void ResidentTables::add(std::size_t i, Codes codes) {
  assert(codes == nullptr || codes->size() * sizeof(std::uint16_t) <= bytes_of(i));
  tables_.push_back(Table{order_[i], bytes_of(i), std::move(codes)});
  bytes_ += tables_.back().bytes;
}

const ResidentTables::Codes* ResidentTables::find(const Material& canonical) const {
  for (const Table& t : tables_)
    if (t.canonical == canonical && t.codes != nullptr) return &t.codes;
  return nullptr;
}

}  // namespace damka
