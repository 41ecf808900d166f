// Shared by the generation tests: file contents and generate() options.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "damka/engine.hpp"
#include "damka/generate.hpp"

namespace damka::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline GenerateOptions options(const std::filesystem::path& out, int pieces, int threads) {
  GenerateOptions o;
  o.max_pieces = pieces;
  o.out = out;
  o.threads = threads;
  return o;
}

// A build's codes, every pass in slot order (a ValueSink for build_material).
class CollectSink : public ValueSink {
 public:
  std::vector<std::vector<std::uint16_t>> codes;
  Status add(std::uint64_t, std::span<const std::span<const std::uint16_t>> c) override {
    codes.resize(c.size());
    for (std::size_t k = 0; k < c.size(); ++k) codes[k].insert(codes[k].end(), c[k].begin(), c[k].end());
    return {};
  }
};

}  // namespace damka::test
