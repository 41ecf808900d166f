// Table slots (see slots.hpp).
#include "damka/slots.hpp"

#include <cassert>

namespace damka {

std::uint64_t table_slots(const MaterialIndex& idx) {
  assert(idx.material().is_canonical());
  return idx.material().is_symmetric() ? idx.size() : 2 * idx.size();
}

std::uint64_t table_slots(Material canonical) { return table_slots(MaterialIndex(canonical)); }

std::uint64_t locate_slot(const MaterialIndex& idx, const Position& p) {
  const Material& m = idx.material();
  assert(m.is_canonical());
  const Material pm = material_of(p);
  Position q = p;
  if (pm != m || (m.is_symmetric() && p.side_to_move == Color::Black)) q = p.flipped();
  assert(material_of(q) == m);
  const std::uint64_t i = idx.rank(q);
  return q.side_to_move == Color::White ? i : idx.size() + i;
}

TableSlot locate(const Position& p) {
  const Material m = material_of(p).canonical();
  return {m, locate_slot(MaterialIndex(m), p)};
}

Position position_at(const MaterialIndex& idx, std::uint64_t slot) {
  assert(slot < table_slots(idx));
  const std::uint64_t n = idx.size();
  if (slot < n) return idx.unrank(slot);
  Position p = idx.unrank(slot - n);
  p.side_to_move = Color::Black;
  return p;
}

Position position_at(Material canonical, std::uint64_t slot) {
  return position_at(MaterialIndex(canonical), slot);
}

}  // namespace damka
