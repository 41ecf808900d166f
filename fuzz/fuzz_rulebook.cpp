// Fuzzes the rulebook loader (statutes' parse_rulebook): any bytes give a
// rulebook or an error naming the origin, never a crash or an exception.
#include <string_view>

#include "damka/statutes.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace damka;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto book = parse_rulebook(text, "fuzz.json");
  if (!book) {
    DAMKA_FUZZ_CHECK(book.message().rfind("fuzz.json", 0) == 0, book.message().c_str());
    return 0;
  }
  for (const Clause& c : book->clauses) {
    (void)c.condition_text();
    (void)c.material_text();
    (void)c.restarts_text();
  }
  return 0;
}
