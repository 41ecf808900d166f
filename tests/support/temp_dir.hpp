// A test's own temporary folder, removed with everything in it when the
// TempDir is destroyed: the one helper every test that writes files uses.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace damka::testing {

class TempDir {
 public:
  // <system temporary folder>/damka_<tag>_<pid>_<test name>_<n>: distinct
  // for every process, test and TempDir (n counts this process's TempDirs),
  // so that tests run in parallel never share one.  Whatever is there from
  // an earlier run is removed; the folder is made when `make` is true.
  explicit TempDir(std::string_view tag = "test", bool make = true) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::temp_directory_path() /
           ("damka_" + std::string(tag) + "_" + std::to_string(::getpid()) + "_" +
            (test != nullptr ? std::string(test->name()) : std::string("none")) + "_" + std::to_string(next()));
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (make) std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The entries in the folder now.
  std::size_t entries() const {
    std::size_t n = 0;
    for (auto it = std::filesystem::directory_iterator(path); it != std::filesystem::directory_iterator(); ++it) ++n;
    return n;
  }

  std::filesystem::path path;

 private:
  static int next() {
    static int n = 0;
    return n++;
  }
};

}  // namespace damka::testing
