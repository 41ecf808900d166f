// damka serve: the output (serve_command.hpp).
#include <cstdio>
#include <iostream>

#include "serve_command.hpp"

namespace damka::cli {

void ServePrinter::emit(const Json& j) const {
  std::lock_guard lock(*events_);
  std::cout << j.dump(-1, ' ', false, Json::error_handler_t::replace) << std::endl;
}

std::function<void(const std::string&)> ServePrinter::log() const {
  if (o_.quiet) return [](const std::string&) {};
  if (o_.json)
    return [self = *this](const std::string& line) {
      self.emit({{"command", "serve"}, {"event", "log"}, {"line", line}});
    };
  return {};
}

void ServePrinter::listening(const Server& srv, const std::filesystem::path& web) const {
  const std::string host = o_.host.find(':') != std::string::npos ? "[" + o_.host + "]" : o_.host;
  if (o_.json) {
    emit({{"command", "serve"}, {"event", "listening"}, {"folder", o_.tables}, {"host", o_.host}, {"port", srv.port()},
          {"url", "http://" + host + ":" + std::to_string(srv.port()) + "/"}, {"web", web.string()}});
    return;
  }
  std::printf("damka serve: listening on http://%s:%d/ (tables %s, web files %s); Ctrl-C stops\n", host.c_str(),
              srv.port(), o_.tables.c_str(), web.c_str());
  std::fflush(stdout);
}

void ServePrinter::stopped(const Server& srv, bool signalled, int rc) const {
  if (o_.json) {
    Json j = {{"command", "serve"}, {"event", "stopped"}, {"requests", srv.requests()}, {"exit_code", rc}};
    if (!signalled) j["error"] = "the server stopped listening (accept failed)";
    emit(j);
    return;
  }
  std::fprintf(stderr, "damka serve: stopped after %llu requests\n", static_cast<unsigned long long>(srv.requests()));
  if (!signalled) std::cerr << "damka serve: the server stopped listening (accept failed)\n";
}

}  // namespace damka::cli
