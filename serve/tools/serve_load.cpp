// serve_load: a bounded load test of `damka serve`.  N clients (one thread
// and one kept-alive connection each) ask GET /api/v1/{variant}?fen=... for
// random positions of 2..P pieces for S seconds; prints requests per second,
// latency percentiles and the number of errors (a non-200 answer or no
// answer).  Exit code 1 when any request failed.
//
//   serve_load --port 8642 --clients 8 --seconds 20 --variant russian --max-pieces 5
#include <httplib.h>

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"serve_load: a bounded load test of damka serve"};
  std::string host = "127.0.0.1", variant = "russian";
  int port = 8642, clients = 8, seconds = 20, max_pieces = 5, positions = 20000;
  unsigned seed = 15;
  bool json = false;
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
  const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
  std::vector<std::uint32_t> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double q) {
    return all.empty() ? 0.0 : all[std::min(all.size() - 1, static_cast<std::size_t>(q * all.size()))] / 1000.0;
  };
  const double rps = all.size() / elapsed;
  if (json)
    std::printf("{\"clients\": %d, \"seconds\": %.1f, \"requests\": %zu, \"errors\": %llu, \"requests_per_s\": %.0f, "
                "\"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f}\n",
                clients, elapsed, all.size(), static_cast<unsigned long long>(errors.load()), rps, pct(0.5), pct(0.9),
                pct(0.99), all.empty() ? 0.0 : all.back() / 1000.0);
  else
    std::printf("%d clients, %.1f s, %s positions of 2..%d pieces: %zu requests, %llu errors, %.0f requests/s, "
                "latency p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n",
                clients, elapsed, variant.c_str(), max_pieces, all.size(),
                static_cast<unsigned long long>(errors.load()), rps, pct(0.5), pct(0.9), pct(0.99),
                all.empty() ? 0.0 : all.back() / 1000.0);
  return errors ? 1 : 0;
}
