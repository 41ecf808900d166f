// damka perft: the output (perft_command.hpp).
#include <cstdio>
#include <iostream>

#include "damka/notation.hpp"
#include "perft_command.hpp"

namespace damka::cli {

void PerftPrinter::start() const {
  if (o_.json) return;
  const char* mode_text = o_.paths ? "every capture path" : "identical moves merged";
  std::printf("%s perft from %s (%s)\n", std::string(s_.rules->display_name).c_str(), to_fen(*s_.rules, s_.start).c_str(),
              mode_text);
  std::printf("%5s %16s %10s %14s\n", "depth", "leaves", "seconds", "leaves/s");
}

void PerftPrinter::depth(const PerftDepth& d) {
  const double rate = d.seconds > 0 ? d.leaves / d.seconds : 0.0;
  if (o_.json) {
    depths_.push_back({{"depth", d.depth}, {"leaves", d.leaves}, {"seconds", d.seconds}, {"leaves_per_second", rate}});
    return;
  }
  std::printf("%5d %16llu %10.3f %14.0f\n", d.depth, static_cast<unsigned long long>(d.leaves), d.seconds, rate);
  std::fflush(stdout);
}

void PerftPrinter::finish() const {
  if (!o_.json) return;
  Json j = report_.object();
  j["fen"] = to_fen(*s_.rules, s_.start);
  j["mode"] = o_.paths ? "paths" : "merged";
  j["depths"] = depths_;
  std::cout << j.dump(2) << "\n";
}

}  // namespace damka::cli
