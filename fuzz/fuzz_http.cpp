// Fuzzes `damka serve`'s request handling: any bytes sent on a connection go
// through the door's completeness check and the worker's parsing, routing,
// parameters and Host check (Server::answer_raw) over small Russian tables.
// Never a crash or a hang; every answer is an HTTP status line with a JSON
// or page body; a 5xx other than 503 is a finding (an internal error).
#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "damka/generate.hpp"
#include "damka/server.hpp"
#include "fuzz_common.hpp"

namespace {

damka::Server* server() {
  static std::unique_ptr<damka::Server> s = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("damka_fuzz_http_" + std::to_string(::getuid()));
    damka::GenerateOptions g;
    g.max_pieces = 3;
    g.out = dir;
    g.threads = 1;
    if (auto built = damka::generate(damka::rules_of(damka::Variant::Russian), g); !built) {
      std::fprintf(stderr, "fuzz_http: %s\n", built.message().c_str());
      std::abort();
    }
    damka::ServeOptions o;
    o.tables = dir;
    o.web_dir = DAMKA_SOURCE_WEB_DIR;
    o.rulebooks_dir = DAMKA_SOURCE_RULEBOOKS_DIR;
    o.cache_bytes = 1 << 20;
    o.stats_threads = 1;
    o.log = [](const std::string&) {};
    auto created = damka::Server::create(o);
    if (!created) {
      std::fprintf(stderr, "fuzz_http: %s\n", created.message().c_str());
      std::abort();
    }
    return std::move(*created);
  }();
  return s.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  if (size > 70000) return 0;
  const std::string_view request(reinterpret_cast<const char*>(data), size);
  const std::string answer = server()->answer_raw(request);
  if (answer.empty()) return 0;  // not a whole request: the door would still wait
  DAMKA_FUZZ_CHECK(answer.rfind("HTTP/1.1 ", 0) == 0, answer.substr(0, 80).c_str());
  const int status = std::atoi(answer.c_str() + 9);
  DAMKA_FUZZ_CHECK(status >= 200 && status < 600, answer.substr(0, 80).c_str());
  DAMKA_FUZZ_CHECK(status < 500 || status == 503, answer.substr(0, 300).c_str());
  return 0;
}
