// Rulebook files with numbers JSON can hold but C++ cannot: the error names
// the file, never a bare json exception.
#include <gtest/gtest.h>

#include <string>

#include "damka/statutes.hpp"

namespace damka {
namespace {

TEST(RulebookFaults, HugeNumberNamesTheFile) {
  for (const std::string& number : {std::string(400, '9'), std::string("1e400"), "-" + std::string(400, '9')}) {
    const std::string text = R"({"name": "x", "clauses": [{"id": "a", "moves": )" + number + "}]}";
    auto book = parse_rulebook(text, "books/huge.json");
    ASSERT_FALSE(book.ok()) << number;
    EXPECT_EQ(book.message().rfind("books/huge.json: ", 0), 0u) << book.message();
  }
}

}  // namespace
}  // namespace damka
