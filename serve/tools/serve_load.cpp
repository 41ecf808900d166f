// serve_load: a bounded load test of `damka serve`.  N clients (one thread
// and one kept-alive connection each) ask GET /api/v1/{variant}?fen=... for
// random positions of 2..P pieces for S seconds; prints requests per second,
// latency percentiles and the number of errors (a non-200 answer or no
// answer).  Exit code 1 when any request failed.  With --slow K, K more
// clients meanwhile send their requests one byte a second (reconnecting when
// cut off), and with --idle K, K more open connections with half a request
// and then say nothing: the figures are the normal clients'.
//
//   serve_load --port 8642 --clients 8 --seconds 20 --variant russian --max-pieces 5
//   serve_load --port 8642 --clients 8 --seconds 20 --slow 16 --idle 16
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "damka/notation.hpp"
#include "damka/rules.hpp"

namespace {

// Random valid positions with 2..max_pieces pieces, both sides present.
std::vector<std::string> random_fens(const damka::Rules& rules, int max_pieces, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  while (static_cast<int>(out.size()) < count) {
    damka::Position p;
    const int n = 2 + static_cast<int>(rng() % static_cast<unsigned>(max_pieces - 1));
    for (int i = 0; i < n; ++i) {
      const int side = i < 2 ? i : static_cast<int>(rng() % 2);
      const int sq = static_cast<int>(rng() % 32);
      if (p.occupied() & damka::bit(sq)) continue;
      const bool king = rng() % 2;
      if (!king && (damka::promotion_row(side == 0 ? damka::Color::White : damka::Color::Black) & damka::bit(sq)))
        continue;
      (king ? p.kings : p.men)[side] |= damka::bit(sq);
    }
    p.side_to_move = rng() % 2 ? damka::Color::White : damka::Color::Black;
    if (!p.is_valid() || !p.pieces(damka::Color::White) || !p.pieces(damka::Color::Black)) continue;
    out.push_back(damka::to_fen(rules, p));
  }
  return out;
}

// A connection to host:port (IPv4), or -1.
int connect_to(const std::string& host, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (fd < 0 || ::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"serve_load: a bounded load test of damka serve"};
  std::string host = "127.0.0.1", variant = "russian";
  int port = 8642, clients = 8, seconds = 20, max_pieces = 5, positions = 20000;
  unsigned seed = 15;
  bool json = false;
  int slow = 0, idle = 0;
  app.add_option("--host", host)->capture_default_str();
  app.add_option("-p,--port", port)->capture_default_str();
  app.add_option("-c,--clients", clients, "Clients (threads), each on one kept-alive connection")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("-s,--seconds", seconds)->capture_default_str()->check(CLI::Range(1, 3600));
  app.add_option("-v,--variant", variant)->capture_default_str();
  app.add_option("-n,--max-pieces", max_pieces, "Positions of 2 to this many pieces")
      ->capture_default_str()->check(CLI::Range(2, 24));
  app.add_option("--positions", positions, "Distinct random positions asked")->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  app.add_option("--seed", seed)->capture_default_str();
  app.add_flag("--json", json, "Print the figures as JSON");
  app.add_option("--slow", slow, "Slow clients besides: each sends its request one byte a second")
      ->capture_default_str()->check(CLI::Range(0, 1024));
  app.add_option("--idle", idle, "Idle connections besides: half a request, then nothing")
      ->capture_default_str()->check(CLI::Range(0, 1024));
  CLI11_PARSE(app, argc, argv);
  const auto v = damka::parse_variant(variant);
  if (!v) {
    std::fprintf(stderr, "serve_load: unknown variant '%s'\n", variant.c_str());
    return 2;
  }
  const std::vector<std::string> fens = random_fens(damka::rules_of(*v), max_pieces, positions, seed);
  std::vector<std::string> paths;
  for (const auto& f : fens) paths.push_back("/api/v1/" + variant + "?fen=" + httplib::detail::encode_query_param(f));

  using clock = std::chrono::steady_clock;
  const auto end = clock::now() + std::chrono::seconds(seconds);
  std::vector<std::vector<std::uint32_t>> latencies(clients);  // microseconds
  std::atomic<std::uint64_t> errors{0};
  std::atomic<bool> first_error_printed{false};
  std::vector<std::thread> threads;
  // The slow and idle clients, started first, stopped at the end.
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> cut_off{0};
  std::vector<std::thread> hostile;
  for (int k = 0; k < slow; ++k)
    hostile.emplace_back([&, k] {
      const std::string request = "GET " + paths[static_cast<std::size_t>(k) % paths.size()] +
                                  " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
      while (!done) {
        const int fd = connect_to(host, port);
        if (fd < 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
          continue;
        }
        for (std::size_t i = 0; i < request.size() && !done; ++i) {
          if (::send(fd, request.data() + i, 1, MSG_NOSIGNAL) != 1) {
            ++cut_off;
            break;
          }
          for (int t = 0; t < 10 && !done; ++t) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ::close(fd);
        if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  for (int k = 0; k < idle; ++k)
    hostile.emplace_back([&] {
      while (!done) {
        const int fd = connect_to(host, port);
        if (fd >= 0) {
          const std::string half = "GET /healthz HTTP/1.1\r\nHost: ";
          [[maybe_unused]] ssize_t n = ::send(fd, half.data(), half.size(), MSG_NOSIGNAL);
          // Waits until the server cuts it off (or the run ends).
          for (;;) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 100) > 0) {
              if (!done) ++cut_off;
              break;
            }
            if (done) break;
          }
          ::close(fd);
        }
        if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  if (slow + idle > 0) std::this_thread::sleep_for(std::chrono::seconds(1));  // they hold their connections
  const auto start = clock::now();
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client cli(host, port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      cli.set_read_timeout(30, 0);
      std::size_t i = static_cast<std::size_t>(c) * 7919;
      while (clock::now() < end) {
        const std::string& path = paths[i++ % paths.size()];
        const auto t0 = clock::now();
        auto r = cli.Get(path);
        const auto us = std::chrono::duration_cast<std::chrono::microseconds>(clock::now() - t0).count();
        latencies[c].push_back(static_cast<std::uint32_t>(us));
        if (!r || r->status != 200) {
          ++errors;
          if (!first_error_printed.exchange(true))
            std::fprintf(stderr, "serve_load: %s: %s\n", path.c_str(),
                         r ? ("status " + std::to_string(r->status) + " " + r->body).c_str()
                           : httplib::to_string(r.error()).c_str());
        }
      }
    });
  for (auto& t : threads) t.join();
  done = true;
  for (auto& t : hostile) t.join();
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
  std::vector<std::uint32_t> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double q) {
    return all.empty() ? 0.0 : all[std::min(all.size() - 1, static_cast<std::size_t>(q * all.size()))] / 1000.0;
  };
  const double rps = all.size() / elapsed;
  if (json)
    std::printf("{\"clients\": %d, \"slow\": %d, \"idle\": %d, \"cut_off\": %llu, \"seconds\": %.1f, \"requests\": %zu, \"errors\": %llu, \"requests_per_s\": %.0f, "
                "\"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f}\n",
                clients, slow, idle, static_cast<unsigned long long>(cut_off.load()), elapsed, all.size(),
                static_cast<unsigned long long>(errors.load()), rps, pct(0.5), pct(0.9),
                pct(0.99), all.empty() ? 0.0 : all.back() / 1000.0);
  else
    std::printf("%d clients (and %d slow, %d idle: cut off %llu times), %.1f s, %s positions of 2..%d pieces: %zu requests, %llu errors, %.0f requests/s, "
                "latency p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n",
                clients, slow, idle, static_cast<unsigned long long>(cut_off.load()), elapsed, variant.c_str(),
                max_pieces, all.size(),
                static_cast<unsigned long long>(errors.load()), rps, pct(0.5), pct(0.9), pct(0.99),
                all.empty() ? 0.0 : all.back() / 1000.0);
  return errors ? 1 : 0;
}
