// An outside C++ program using an installed damka: probes one position
// through the C++ API and says where the rulebook it uses was found.
// argv: tables folder, FEN.  Prints "result plies" of the DTW value, then
// "rulebook PATH".
#include <damka/notation.hpp>
#include <damka/probe.hpp>
#include <damka/statutes.hpp>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: probe_cpp TABLES FEN\n";
    return 2;
  }
  const damka::Rules& rules = damka::rules_of(damka::Variant::Russian);
  auto tb = damka::Tablebase::open(rules, argv[1]);
  if (!tb) {
    std::cerr << "open: " << tb.message() << "\n";
    return 1;
  }
  auto p = damka::parse_fen(rules, argv[2]);
  if (!p) {
    std::cerr << "fen: " << p.message() << "\n";
    return 1;
  }
  const damka::ProbeResult r = (*tb)->probe_dtw(*p);
  if (!r.ok()) {
    std::cerr << "probe: " << damka::probe_status_name(r.status) << "\n";
    return 1;
  }
  std::cout << (r.value.wdl == damka::Wdl::Win ? "win" : r.value.wdl == damka::Wdl::Loss ? "loss" : "draw") << " "
            << (r.value.wdl == damka::Wdl::Draw ? 0 : r.value.plies) << "\n";
  auto book = damka::load_rulebook("russian-federation", damka::rulebook_search_path());
  if (!book) {
    std::cerr << "rulebook: " << book.message() << "\n";
    return 1;
  }
  std::cout << "rulebook " << book->path.string() << "\n";
  return 0;
}
