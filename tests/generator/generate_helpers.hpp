// Shared by the generation tests: file contents and generate() options.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

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

}  // namespace damka::test
