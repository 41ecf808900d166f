// damka serve: routes, parameters and errors (see server.hpp).
#include "damka/server.hpp"

#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "damka/index.hpp"
#include "damka/material_stats.hpp"
#include "damka/notation.hpp"
#include "damka/position_report.hpp"
#include "damka/stats_report.hpp"
#include "damka/statute_json.hpp"
#include "damka/statutes.hpp"
#include "damka/table_paths.hpp"
#include "connection_gate.hpp"
#include "gate_stream.hpp"
#include "tables_listing.hpp"

#ifndef DAMKA_SOURCE_WEB_DIR
#define DAMKA_SOURCE_WEB_DIR ""
#endif

namespace damka {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::size_t kMaxFenBytes = 1024;           // the longest FEN is under 200 bytes
constexpr std::size_t kMaxParamBytes = 128;          // every other parameter
constexpr std::uintmax_t kMaxWebFileBytes = 4u << 20;
constexpr int kMaxMovesPlayed = 100000;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A request's problem: HTTP status, a code for programs, a message for people.
struct ApiError {
  int status;
  std::string code, message;
};

void send_json(httplib::Response& res, int status, const json& j) {
  res.status = status;
  res.set_content(dump(j), "application/json");
}

void send_error(httplib::Response& res, const ApiError& e) {
  send_json(res, e.status, {{"code", e.code}, {"error", e.message}});
}

const char* reason_code(int status) {
  switch (status) {
    case 400: return "bad_request";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 413: return "too_large";
    case 414: return "too_large";
    case 500: return "internal";
    default: return "error";
  }
}

// Printable ASCII, the rest escaped, at most `max` bytes: for log lines.
std::string printable(std::string_view s, std::size_t max) {
  std::string out;
  for (unsigned char c : s) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    if (c >= 0x21 && c < 0x7f) out += static_cast<char>(c);
    else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

std::string mime_of(const fs::path& p) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},   {".svg", "image/svg+xml"},
      {".png", "image/png"},                 {".ico", "image/x-icon"},
      {".json", "application/json"},         {".txt", "text/plain; charset=utf-8"}};
  const auto it = types.find(p.extension().string());
  return it == types.end() ? "" : it->second;
}

// Everything known about one variant while serving.
struct VariantState {
  const Rules* rules = nullptr;
  std::unique_ptr<Tablebase> tb;
  std::vector<std::string> rulebooks;  // names of the books governing it
  std::mutex statutes_mu;              // guards `values` (loads tables on first use)
  std::unique_ptr<TableDirValues> values;
  std::vector<Material> materials;     // with a WDL file when the server started
  std::mutex stats_mu;                 // guards `stats`; held while one is computed
  std::map<Material, MaterialStats> stats;  // computed on first request, kept
};

struct WebFile {
  std::string body, mime;
};

}  // namespace

Expected<fs::path> find_web_dir(const fs::path& exe_dir, const fs::path& override_dir, Env& env) {
  std::vector<fs::path> tried;
  if (!override_dir.empty()) tried.push_back(override_dir);
  else {
    if (!exe_dir.empty()) {
      tried.push_back(exe_dir / ".." / "share" / "damka" / "web");
      tried.push_back(exe_dir / "web");
    }
    if (std::string_view(DAMKA_SOURCE_WEB_DIR).size()) tried.push_back(DAMKA_SOURCE_WEB_DIR);
  }
  std::string places;
  for (const fs::path& d : tried) {
    if (auto index = env.stat(d / "index.html"); index && index->regular) {
      std::error_code ec;
      const fs::path resolved = fs::weakly_canonical(d, ec);  // path arithmetic: its links resolved
      return ec ? d : resolved;
    }
    places += (places.empty() ? "" : ", ") + d.string();
  }
  return Error("the explorer's files (index.html) are not in " + (places.empty() ? std::string("any place") : places) +
               "; give their directory with --web DIR");
}

// The Host names a server accepts (ServeOptions::allow_hosts); empty: any.
std::set<std::string> allowed_hosts(const ServeOptions& opt) {
  std::set<std::string> out;
  auto lower = [](std::string h) {
    for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return h;
  };
  for (const std::string& h : opt.allow_hosts) {
    if (h == "*") return {};
    out.insert(lower(h));
  }
  if (!out.empty()) return out;
  const std::string host = lower(opt.host);
  if (host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]") return {};
  out.insert(host.find(':') != std::string::npos && host[0] != '[' ? "[" + host + "]" : host);
  if (host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1" || host == "[::1]")
    out.insert({"localhost", "127.0.0.1", "[::1]"});
  return out;
}

// "Name:port" or "[v6]:port" -> the name, lower case.
std::string host_name(std::string_view header) {
  std::string h(header);
  for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!h.empty() && h[0] == '[') {
    const auto close = h.find(']');
    return close == std::string::npos ? h : h.substr(0, close + 1);
  }
  const auto colon = h.find(':');
  return colon == std::string::npos ? h : h.substr(0, colon);
}

struct Server::Impl {
  ServeOptions opt;
  serve_detail::GatedHttp http;
  std::set<std::string> hosts;  // allowed Host names (empty: any)
  int listen_fd = -1, wake_fd = -1;
  std::unique_ptr<serve_detail::ConnectionGate> gate;
  std::unique_ptr<httplib::ThreadPool> pool;
  std::map<Variant, std::unique_ptr<VariantState>> variants;
  std::map<std::string, Rulebook> books;
  std::map<std::string, WebFile> web;  // by URL path
  json tables_listing;
  std::atomic<std::uint64_t> served{0};
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::mutex log_mu;
  std::mutex run_mu;
  bool stop_requested = false, run_started = false;
  std::atomic<bool> run_done{false};
  int bound_port = -1;
  std::thread warm_thread;              // warm_statutes(), when ServeOptions::warm_statutes
  std::atomic<bool> warm_stop{false};

  void log(const std::string& line) {
    if (opt.log) {
      opt.log(line);
      return;
    }
    std::lock_guard lock(log_mu);
    std::fprintf(stderr, "%s\n", line.c_str());
  }

  Expected<VariantState*> variant_of(const std::string& name) {
    const auto v = parse_variant(name);
    if (!v) return Error("unknown variant '" + printable(name, 40) + "' (known: " + variant_names() + ")");
    return variants.at(*v).get();
  }

  // fen, pv, rulebook, moves: each checked; the first problem found is the answer.
  struct Query {
    Position position;
    bool pv = true;
    std::string rulebook;
    int moves = 0;
  };
  std::variant<Query, ApiError> parse_query(const httplib::Request& req, const VariantState& vs, bool statutes) {
    for (const auto& [key, value] : req.params) {
      static const std::set<std::string> known = {"fen", "pv", "rulebook", "moves"};
      if (!known.count(key))
        return ApiError{400, "bad_parameter",
                        "unknown parameter '" + printable(key, 40) + "' (known: fen, pv, rulebook, moves)"};
      if (key != "fen" && value.size() > kMaxParamBytes)
        return ApiError{400, "too_large", "parameter '" + key + "' is " + std::to_string(value.size()) +
                                              " bytes long; at most " + std::to_string(kMaxParamBytes)};
    }
    Query q;
    if (!req.has_param("fen")) return ApiError{400, "missing_fen", "the parameter fen is missing, e.g. ?fen=W:WKa1,Kc3:BKh8"};
    const std::string fen = req.get_param_value("fen");
    if (fen.size() > kMaxFenBytes)
      return ApiError{400, "too_large", "fen is " + std::to_string(fen.size()) + " bytes long; at most " +
                                            std::to_string(kMaxFenBytes)};
    auto parsed = parse_fen(*vs.rules, fen);
    if (!parsed) return ApiError{400, "bad_fen", "bad FEN: " + parsed.message()};
    q.position = *parsed;
    if (Status s = probeable(q.position); !s.ok()) return ApiError{400, "invalid_position", s.message()};
    if (req.has_param("pv")) {
      const std::string v = req.get_param_value("pv");
      if (v == "1" || v == "true") q.pv = true;
      else if (v == "0" || v == "false") q.pv = false;
      else return ApiError{400, "bad_parameter", "pv must be 0 or 1, not '" + printable(v, 40) + "'"};
    }
    if (req.has_param("moves")) {
      const std::string v = req.get_param_value("moves");
      int n = -1;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || end != v.data() + v.size() || n < 0 || n > kMaxMovesPlayed)
        return ApiError{400, "bad_parameter", "moves must be a whole number from 0 to " +
                                                  std::to_string(kMaxMovesPlayed) + ", not '" + printable(v, 40) + "'"};
      q.moves = n;
    }
    if (req.has_param("rulebook")) q.rulebook = req.get_param_value("rulebook");
    else if (statutes) {
      if (vs.rulebooks.empty())
        return ApiError{400, "no_rulebook", "no rulebook governs " + std::string(vs.rules->name)};
      q.rulebook = vs.rulebooks.front();
    }
    if (!q.rulebook.empty() || req.has_param("rulebook")) {  // "rulebook=" names none: refused
      const auto it = books.find(q.rulebook);
      if (it == books.end() || !it->second.governs(*vs.rules)) {
        std::string names;
        for (const auto& n : vs.rulebooks) names += (names.empty() ? "" : ", ") + n;
        return ApiError{400, "bad_rulebook", "no rulebook '" + printable(q.rulebook, 60) + "' for " +
                                                 std::string(vs.rules->name) + " (known: " +
                                                 (names.empty() ? "none" : names) + ")"};
      }
    }
    return q;
  }

  // The statute values every statute request of the variants' materials
  // reads (ValueSource::statute_table), computed once: per variant, rulebook,
  // judgeable clause and material it covers, smallest materials first, each
  // under the variant's statute lock (a request waits for one material at
  // most), until `warm_statutes_bytes` of counts or a stop.
  void warm_statutes() {
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t bytes = 0;
    int computed = 0;
    bool budget_reached = false;
    for (auto& [v, vs] : variants) {
      std::vector<Material> ms = vs->materials;
      std::stable_sort(ms.begin(), ms.end(),
                       [](const Material& a, const Material& b) { return MaterialIndex(a).size() < MaterialIndex(b).size(); });
      for (const std::string& name : vs->rulebooks) {
        const Rulebook& book = books.at(name);
        for (const Clause& c : book.clauses) {
          if (!c.judgeable) continue;
          for (const Material& m : ms) {
            if (warm_stop) return;
            if (!clause_matches_material(book, c, m)) continue;
            const std::uint64_t need = MaterialIndex(m).size() * 2 * sizeof(std::uint16_t);
            if (bytes + need > opt.warm_statutes_bytes) {
              budget_reached = true;
              continue;
            }
            std::lock_guard lock(vs->statutes_mu);
            if (!vs->values) vs->values = std::make_unique<TableDirValues>(*vs->rules, opt.tables, values_options());
            if (vs->values->statute_table(book, c, m).ok()) {
              bytes += need;
              ++computed;
            }
          }
        }
      }
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.1f", s);
    log("damka serve: statute values ready: " + std::to_string(computed) + " (clause, material) pairs in " + secs +
        " s" + (budget_reached ? " (larger materials are computed on first request)" : ""));
  }

  // The statutes' value source reads the tables through the server's Env.
  TableDirOptions values_options() const {
    TableDirOptions o;
    o.env = opt.env;
    return o;
  }

  json statutes_of(VariantState& vs, const Query& q) {
    const Rulebook& book = books.at(q.rulebook);
    std::lock_guard lock(vs.statutes_mu);
    if (!vs.values) vs.values = std::make_unique<TableDirValues>(*vs.rules, opt.tables, values_options());
    return statutes_json(q.rulebook, q.moves, judge(book, *vs.rules, q.position, q.moves, *vs.values));
  }

  // One material's statistics: computed once (one at a time per variant), then kept.
  Expected<MaterialStats> stats_of(VariantState& vs, const Material& m) {
    std::lock_guard lock(vs.stats_mu);
    if (const auto it = vs.stats.find(m); it != vs.stats.end()) return it->second;
    StatsOptions so;
    so.threads = opt.stats_threads;
    auto s = material_stats(*vs.tb, m, so);
    if (s) vs.stats.emplace(m, *s);  // failures (a table missing, an I/O error) are tried again
    return s;
  }

  // GET /api/v1/{variant}/stats[?material=M]
  void handle_stats(const httplib::Request& req, httplib::Response& res) {
    auto vs = variant_of(req.matches[1]);
    if (!vs) return send_error(res, {400, "unknown_variant", vs.message()});
    VariantState& v = **vs;
    for (const auto& [key, value] : req.params) {
      if (key != "material")
        return send_error(res, {400, "bad_parameter", "unknown parameter '" + printable(key, 40) + "' (known: material)"});
      if (value.size() > kMaxParamBytes)
        return send_error(res, {400, "too_large", "parameter 'material' is " + std::to_string(value.size()) +
                                                      " bytes long; at most " + std::to_string(kMaxParamBytes)});
    }
    std::vector<Material> wanted = v.materials;
    if (req.has_param("material")) {
      const std::string text = req.get_param_value("material");
      auto m = Material::parse(text);
      if (!m || !m->is_valid() || m->white() == 0 || m->black() == 0)
        return send_error(res, {400, "bad_parameter", "material must name both sides' pieces, e.g. 2Kv1K, not '" +
                                                          printable(text, 40) + "'"});
      const Material c = m->canonical();
      if (std::find(v.materials.begin(), v.materials.end(), c) == v.materials.end())
        return send_error(res, {404, "no_table", "no " + std::string(v.rules->name) + " table of " + c.name() +
                                                     " in " + v.tb->directory().string()});
      wanted = {c};
    }
    std::vector<MaterialStats> all;
    json errors = json::array();
    for (const Material& m : wanted) {
      auto s = stats_of(v, m);
      if (s) all.push_back(std::move(*s));
      else errors.push_back({{"material", m.name()}, {"error", s.message()}});
    }
    json j = variant_stats_json(*v.rules, all);
    j["errors"] = errors;
    send_json(res, 200, j);
  }

  void handle_position(const httplib::Request& req, httplib::Response& res, bool statutes) {
    auto vs = variant_of(req.matches[1]);
    if (!vs) return send_error(res, {400, "unknown_variant", vs.message()});
    auto parsed = parse_query(req, **vs, statutes);
    if (auto* e = std::get_if<ApiError>(&parsed)) return send_error(res, *e);
    const Query& q = std::get<Query>(parsed);
    VariantState& v = **vs;
    json j;
    if (statutes) {
      j["variant"] = std::string(v.rules->name);
      j["fen"] = to_fen(*v.rules, q.position);
      j["material"] = material_of(q.position).name();
      j["statutes"] = statutes_of(v, q);
    } else {
      j = position_json(*v.tb, report_position(*v.tb, q.position, q.pv));
      if (!q.rulebook.empty()) j["statutes"] = statutes_of(v, q);
    }
    send_json(res, 200, j);
  }

  void install_routes() {
    http.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
      json names = json::array();
      for (const auto& [v, vs] : variants)
        if (vs->tb->max_pieces() > 0) names.push_back(std::string(vs->rules->name));
      const double up = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      send_json(res, 200, {{"status", "ok"}, {"variants_with_tables", names}, {"requests", served.load()},
                           {"uptime_s", static_cast<std::int64_t>(up)}});
    });
    http.Get("/api/v1/tables",
             [this](const httplib::Request&, httplib::Response& res) { send_json(res, 200, tables_listing); });
    http.Get(R"(/api/v1/([^/]+)/stats)",
             [this](const httplib::Request& req, httplib::Response& res) { handle_stats(req, res); });
    http.Get(R"(/api/v1/([^/]+)/statutes)",
             [this](const httplib::Request& req, httplib::Response& res) { handle_position(req, res, true); });
    http.Get(R"(/api/v1/([^/]+))",
             [this](const httplib::Request& req, httplib::Response& res) { handle_position(req, res, false); });
    for (const auto& [path, file] : web) {
      const WebFile* f = &file;
      http.Get(path, [f](const httplib::Request&, httplib::Response& res) {
        res.set_header("Cache-Control", "no-cache");
        res.set_content(f->body, f->mime);
      });
    }
    http.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req,
                                                                   httplib::Response& res) {
      if (res.body.empty()) {
        std::string message = res.status == 404   ? "no such path: " + printable(req.path, 200)
                              : res.status == 414 ? "request line too long (at most 8 KiB)"
                              : res.status == 413 ? "request body too large"
                                                  : "bad request";
        send_error(res, {res.status, reason_code(res.status), message});
      }
      return httplib::Server::HandlerResponse::Handled;
    }));
    http.set_exception_handler([this](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "unknown exception";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
      }
      log("damka serve: error: " + printable(req.target, 300) + ": " + what);
      send_error(res, {500, "internal", "internal error: " + what});
    });
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      request_start() = std::chrono::steady_clock::now();
      if (!opt.cors_origin.empty()) {
        res.set_header("Access-Control-Allow-Origin", opt.cors_origin);
        res.set_header("Vary", "Origin");
      }
      // A page of another site that rebinds its name to this address sends its own name.
      if (!hosts.empty() && req.has_header("Host")) {
        const std::string name = host_name(req.get_header_value("Host"));
        if (!hosts.count(name)) {
          std::string names;
          for (const auto& h : hosts) names += (names.empty() ? "" : ", ") + h;
          send_error(res, {403, "bad_host", "Host '" + printable(name, 80) + "' is not an address of this server (" +
                                                names + "; see --allow-host)"});
          return httplib::Server::HandlerResponse::Handled;
        }
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      served.fetch_add(1, std::memory_order_relaxed);
      auto& start = request_start();
      std::string took = "-";
      if (start != std::chrono::steady_clock::time_point{}) {
        const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
        took = std::to_string(us.count()) + "us";
        start = {};
      }
      log(utc_now() + " " + printable(req.remote_addr, 64) + " " + printable(req.method, 16) + " " +
          printable(req.target.empty() ? req.path : req.target, 300) + " " + std::to_string(res.status) + " " +
          std::to_string(res.body.size()) + "B " + took);
    });
  }

  static std::chrono::steady_clock::time_point& request_start() {
    thread_local std::chrono::steady_clock::time_point t{};
    return t;
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  impl_->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}
Server::~Server() {
  stop();
  if (impl_->warm_thread.joinable()) impl_->warm_thread.join();
  if (impl_->listen_fd >= 0) ::close(impl_->listen_fd);
  if (impl_->wake_fd >= 0) ::close(impl_->wake_fd);
}

Expected<std::unique_ptr<Server>> Server::create(ServeOptions options) {
  Env& env = env_or_default(options.env);
  if (auto tables = env.stat(options.tables); !tables || !tables->directory) {
    if (tables)
      return Error("tables directory " + options.tables.string() + " is not a directory (give the folder of tables)");
    if (tables.code() == ErrorCode::NotFound)
      return Error("tables directory " + options.tables.string() +
                   " does not exist (build tables with `damka generate -o " + options.tables.string() + "`)");
    if (tables.message() == std::strerror(ELOOP))
      return Error("tables directory " + options.tables.string() + " is a loop of symbolic links");
    return Error("tables directory " + options.tables.string() + ": " + tables.message() + " (I/O error)",
                 ErrorCode::Io);
  }
  if (options.threads < 1) return Error("threads must be at least 1");
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  const ServeOptions& opt = impl->opt;
  Impl* self = impl.get();

  // Rulebooks.
  const auto dirs = rulebook_search_path(opt.exe_dir, opt.rulebooks_dir);
  for (const std::string& name : known_rulebooks(dirs, env)) {
    auto b = load_rulebook(name, dirs, env);
    if (b) impl->books.emplace(name, std::move(*b));
    else self->log("damka serve: skipping rulebook " + name + ": " + b.message());
  }
  // Tables.
  for (Variant v : all_variants()) {
    auto vs = std::make_unique<VariantState>();
    vs->rules = &rules_of(v);
    TablebaseOptions topt;
    topt.cache_bytes = opt.cache_bytes;
    topt.env = opt.env;
    topt.on_error = [self](const std::string& m) { self->log("damka serve: table error: " + m); };
    auto tb = Tablebase::open(*vs->rules, opt.tables, topt);
    if (!tb) return Error("cannot open tables: " + tb.message());
    vs->tb = std::move(*tb);
    auto materials = materials_with_tables(*vs->tb);
    if (!materials) return Error("cannot list tables: " + materials.message());
    vs->materials = std::move(*materials);
    for (const auto& [name, book] : impl->books)
      if (book.governs(*vs->rules)) vs->rulebooks.push_back(name);
    impl->variants.emplace(v, std::move(vs));
  }
  // Web files: every file of a known type in web_dir, served by name; index.html also at /.
  if (!opt.web_dir.empty()) {
    auto names = env.list_dir(opt.web_dir);
    if (!names) return Error("cannot list " + opt.web_dir.string() + ": " + names.message(), names.code());
    std::sort(names->begin(), names->end());
    for (const std::string& name : *names) {
      const fs::path file = opt.web_dir / name;
      const std::string mime = mime_of(file);
      if (mime.empty()) continue;
      auto info = env.stat(file);
      if (!info || !info->regular || info->size > kMaxWebFileBytes) continue;
      auto body = read_small_file(env, file, kMaxWebFileBytes);
      if (!body) return Error("cannot read " + file.string() + ": " + body.message(), ErrorCode::Io);
      impl->web["/" + name] = {std::move(*body), mime};
    }
    const auto index = impl->web.find("/index.html");
    if (index == impl->web.end()) return Error("no index.html in " + opt.web_dir.string());
    impl->web["/"] = index->second;
  }
  // The listing of /api/v1/tables (tables present when the server started).
  json list = json::array();
  for (const auto& [v, vs] : impl->variants) {
    json entry = variant_listing(*vs->rules, opt.tables, *vs->tb);
    entry["rulebooks"] = vs->rulebooks;
    list.push_back(entry);
  }
  impl->tables_listing = {{"tables", opt.tables.string()}, {"variants", list}};

  if (opt.read_timeout_ms < 1 || opt.idle_timeout_ms < 1) return Error("timeouts must be at least 1 ms");
  if (opt.max_client_connections < 1 || opt.max_connections < 1) return Error("connection limits must be at least 1");
  impl->hosts = allowed_hosts(opt);
  impl->http.set_payload_max_length(64 * 1024);
  impl->install_routes();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

namespace {

// A listening socket on host:port: SO_REUSEADDR (a restart binds at once)
// and never SO_REUSEPORT (which would let a second server share the port).
Expected<int> listen_on(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return Error("cannot bind to " + host + ": " + ::gai_strerror(rc), ErrorCode::Io);
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (a->ai_family == AF_INET6) {
      const int no = 0;
      ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no);
    }
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      ::freeaddrinfo(found);
      return fd;
    }
    const int err = errno;
    ::close(fd);
    if (err == EADDRINUSE) {
      ::freeaddrinfo(found);
      return Error("port " + std::to_string(port) + " on " + host +
                       " is in use (another server listens there); stop it or choose another --port",
                   ErrorCode::Io);
    }
    why = std::strerror(err);
  }
  ::freeaddrinfo(found);
  return Error("cannot bind to " + host + ":" + std::to_string(port) + ": " + why + " (not an address of this machine?)",
               ErrorCode::Io);
}

int bound_port_of(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return -1;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return -1;
}

}  // namespace

Status Server::bind() {
  Impl& s = *impl_;
  if (s.opt.port < 0 || s.opt.port > 65535) return Error("port must be from 0 to 65535");
  if (s.listen_fd >= 0) return Error("already bound");
  auto fd = listen_on(s.opt.host, s.opt.port);
  if (!fd) return fd.error();
  s.listen_fd = *fd;
  s.bound_port = bound_port_of(s.listen_fd);
  return Status();
}

int Server::port() const { return impl_->bound_port; }

void Server::run() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.run_mu);
    if (s.stop_requested || s.listen_fd < 0) return;
    s.run_started = true;
  }
  if (s.opt.warm_statutes && !s.warm_thread.joinable()) s.warm_thread = std::thread([&s] { s.warm_statutes(); });
  // Workers answer whole requests; a kept-alive connection goes back to the gate.
  s.pool = std::make_unique<httplib::ThreadPool>(static_cast<std::size_t>(s.opt.threads));
  serve_detail::GateLimits limits;
  limits.read_timeout = std::chrono::milliseconds(s.opt.read_timeout_ms);
  limits.idle_timeout = std::chrono::milliseconds(s.opt.idle_timeout_ms);
  limits.per_client = s.opt.max_client_connections;
  limits.total = s.opt.max_connections;
  Impl* self = &s;
  auto serve = [self](serve_detail::ReadyConnection c) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(self->opt.read_timeout_ms);
    serve_detail::GateStream strm(c.fd, std::move(c.bytes), deadline,
                                  std::chrono::milliseconds(self->opt.idle_timeout_ms));
    bool closed = false;
    const bool ok = self->http.serve_one(strm, /*close_connection=*/false, closed);
    if (ok && !closed) {
      c.bytes = strm.leftover();
      self->gate->come_back(std::move(c));
    } else {
      ::shutdown(c.fd, SHUT_RDWR);
      ::close(c.fd);
      self->gate->closed(c.client);
    }
  };
  s.gate = std::make_unique<serve_detail::ConnectionGate>(
      limits, [self, serve](serve_detail::ReadyConnection c) { self->pool->enqueue([serve, c]() mutable { serve(std::move(c)); }); },
      [self](const std::string& line) { self->log(line); });
  pollfd fds[2] = {{s.listen_fd, POLLIN, 0}, {s.wake_fd, POLLIN, 0}};
  for (;;) {
    fds[0].revents = fds[1].revents = 0;
    const int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || fds[1].revents != 0) break;
    if (fds[0].revents & (POLLERR | POLLHUP | POLLNVAL)) break;
    const int fd = ::accept4(s.listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // out of descriptors: let some close
      continue;
    }
    const int yes = 1;
    // Headers and body go out in separate writes: without TCP_NODELAY, Nagle's
    // algorithm and the client's delayed ACK hold each answer ~40 ms.
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    s.gate->admit(fd);
  }
  s.gate->stop();     // waiting connections closed
  s.pool->shutdown(); // requests being answered finish; their connections close
  s.gate.reset();
  s.run_done = true;
}

void Server::stop() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.run_mu);
    s.stop_requested = true;
  }
  s.warm_stop = true;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t w = ::write(s.wake_fd, &one, sizeof one);
}

std::uint64_t Server::requests() const { return impl_->served.load(); }

namespace {

// A connection held in memory: reads `in`, writes to `out`.
class MemoryStream final : public httplib::Stream {
 public:
  explicit MemoryStream(std::string_view in) : in_(in) {}
  bool is_readable() const override { return pos_ < in_.size(); }
  bool is_writable() const override { return true; }
  ssize_t read(char* ptr, size_t size) override {
    if (pos_ >= in_.size()) return -1;
    const std::size_t n = std::min(size, in_.size() - pos_);
    std::memcpy(ptr, in_.data() + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    out_.append(ptr, size);
    return static_cast<ssize_t>(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 1;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 2;
  }
  socket_t socket() const override { return -1; }
  std::string take() { return std::move(out_); }

 private:
  std::string_view in_;
  std::size_t pos_ = 0;
  std::string out_;
};

}  // namespace

std::string Server::answer_raw(std::string_view request) {
  bool too_large = false;
  if (!serve_detail::request_complete(std::string(request), too_large)) {
    if (too_large)
      return serve_detail::raw_error(431, "Request Header Fields Too Large", "too_large", "request headers too large");
    return {};
  }
  MemoryStream strm(request);
  bool closed = false;
  impl_->http.serve_one(strm, /*close_connection=*/true, closed);
  return strm.take();
}

}  // namespace damka
