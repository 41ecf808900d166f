// ServeOptions::warm_statutes: the server computes the rulebooks' statute
// values of its tables' materials in the background once it runs, says when
// they are ready, and answers statute requests exactly as a server that
// computes them on first request.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "damka/server.hpp"

namespace {

using json = nlohmann::json;

struct Running {
  std::unique_ptr<damka::Server> server;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> log;

  explicit Running(bool warm) {
    damka::ServeOptions o;
    o.tables = DAMKA_SERVE_TABLES;
    o.port = 0;
    o.web_dir = DAMKA_WEB_DIR;
    o.warm_statutes = warm;
    o.log = [this](const std::string& line) {
      std::lock_guard lock(mu);
      log.push_back(line);
      cv.notify_all();
    };
    auto s = damka::Server::create(o);
    EXPECT_TRUE(s.ok()) << s.message();
    if (!s) return;
    server = std::move(*s);
    EXPECT_TRUE(server->bind().ok());
    thread = std::thread([this] { server->run(); });
  }
  ~Running() {
    if (server) server->stop();
    if (thread.joinable()) thread.join();
  }
  // The first log line containing `part` (waits up to `seconds`), or "".
  std::string wait_for(const std::string& part, int seconds) {
    std::unique_lock lock(mu);
    std::string found;
    cv.wait_for(lock, std::chrono::seconds(seconds), [&] {
      for (const std::string& l : log)
        if (l.find(part) != std::string::npos) found = l;
      return !found.empty();
    });
    return found;
  }
  json get(const std::string& path) {
    httplib::Client c("127.0.0.1", server->port());
    c.set_read_timeout(60, 0);
    auto r = c.Get(path);
    EXPECT_TRUE(r) << path;
    return r ? json::parse(r->body) : json();
  }
};

TEST(ServeWarmStatutes, ComputedInTheBackgroundWithTheSameAnswers) {
  Running warm(true), cold(false);
  ASSERT_TRUE(warm.server && cold.server);
  const std::string ready = warm.wait_for("statute values ready", 300);
  ASSERT_NE(ready, "") << "no 'statute values ready' line";
  const std::size_t at = ready.find("ready: ");
  ASSERT_NE(at, std::string::npos) << ready;
  EXPECT_GT(std::stoi(ready.substr(at + 7)), 0) << ready;
  EXPECT_EQ(cold.wait_for("statute values ready", 0), "");
  for (const char* q : {"fen=W:WKa1,Kc3,Ke5:BKh8&rulebook=russian-federation&moves=4",
                        "fen=B:WKa1,Kc3,Ke5:BKh8&rulebook=russian-federation&moves=0",
                        "fen=W:WKa1,Kc3:BKh8&rulebook=ukrainian-64&moves=2",
                        "fen=W:WKb2,Kc3,Ke5:BKh8&rulebook=russian-summary&moves=10"}) {
    const std::string path = std::string("/api/v1/russian/statutes?") + q;
    const json a = warm.get(path), b = cold.get(path);
    EXPECT_EQ(a, b) << path;
    EXPECT_TRUE(a.contains("statutes") && a["statutes"].contains("summary")) << a.dump();
  }
}

}  // namespace
