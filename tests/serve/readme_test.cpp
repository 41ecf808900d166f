// The README's API examples are the server's answers: every request in the
// README's API table is sent to a server of the test tables, and every
// "key":value pair its example answer shows (strings, numbers, booleans) is in
// the server's answer; a string cut short with "..." must begin the server's.
// Keys whose values depend on the folder or the moment (tables, requests,
// uptime_s) are left out.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "damka/server.hpp"

namespace {

using json = nlohmann::json;

struct Example {
  std::string request;  // path and query
  int status = 200;
  std::string answer;   // the example's text
};

std::vector<Example> readme_examples() {
  std::ifstream in(std::string(DAMKA_SOURCE_DIR) + "/README.md");
  std::vector<Example> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| `GET /", 0) != 0) continue;
    Example e;
    const std::size_t end = line.find('`', 7);
    e.request = line.substr(7, end - 7);
    std::size_t at = line.find("| ", end) + 2;
    if (std::isdigit(static_cast<unsigned char>(line[at]))) {
      e.status = std::stoi(line.substr(at, 3));
      at += 4;
    }
    const std::size_t open = line.find('`', at), close = line.find('`', open + 1);
    e.answer = line.substr(open + 1, close - open - 1);
    out.push_back(e);
  }
  return out;
}

// Whether some "key" in the tree has a value for which `ok` holds.
bool any_value(const json& j, const std::string& key, const std::function<bool(const json&)>& ok) {
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      if ((it.key() == key && ok(it.value())) || any_value(it.value(), key, ok)) return true;
  if (j.is_array())
    for (const json& x : j)
      if (any_value(x, key, ok)) return true;
  return false;
}

class ReadmeApi : public ::testing::Test {
 protected:
  void SetUp() override {
    damka::ServeOptions o;
    o.tables = DAMKA_SERVE_TABLES;
    o.port = 0;
    o.web_dir = DAMKA_WEB_DIR;
    o.log = [](const std::string&) {};
    auto s = damka::Server::create(o);
    ASSERT_TRUE(s.ok()) << s.message();
    server_ = std::move(*s);
    ASSERT_TRUE(server_->bind().ok());
    thread_ = std::thread([this] { server_->run(); });
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  std::unique_ptr<damka::Server> server_;
  std::thread thread_;
};

TEST_F(ReadmeApi, EveryExampleAnswerIsTheServers) {
  const std::vector<Example> examples = readme_examples();
  ASSERT_GE(examples.size(), 6u) << "the README's API table was not found";
  const std::regex pair(R"re("([^"]+)":("(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?|true|false|null))re");
  int checked = 0;
  for (const Example& e : examples) {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(60, 0);
    auto r = c.Get(e.request);
    ASSERT_TRUE(r) << e.request;
    EXPECT_EQ(r->status, e.status) << e.request << "\n" << r->body;
    const json answer = json::parse(r->body);
    for (std::sregex_iterator it(e.answer.begin(), e.answer.end(), pair), end; it != end; ++it) {
      const std::string key = (*it)[1], text = (*it)[2];
      if (key == "tables" || key == "requests" || key == "uptime_s") continue;
      const json shown = json::parse(text);
      const std::size_t cut = shown.is_string() ? shown.get<std::string>().find("...") : std::string::npos;
      bool found;
      if (cut != std::string::npos) {
        std::string prefix = shown.get<std::string>().substr(0, cut);
        while (!prefix.empty() && (prefix.back() == ' ' || prefix.back() == ';')) prefix.pop_back();
        found = any_value(answer, key, [&](const json& v) { return v.is_string() && v.get<std::string>().rfind(prefix, 0) == 0; });
      } else {
        found = any_value(answer, key, [&](const json& v) { return v == shown; });
      }
      ++checked;
      EXPECT_TRUE(found) << e.request << ": the README shows \"" << key << "\":" << text
                         << ", the server answers:\n" << answer.dump().substr(0, 3000);
    }
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
