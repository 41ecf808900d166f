// damka serve: routes, parameters and errors (see server.hpp).
#include "damka/server.hpp"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <fstream>
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
#include "damka/table_paths.hpp"
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

Expected<fs::path> find_web_dir(const fs::path& exe_dir, const fs::path& override_dir) {
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
    std::error_code ec;
    if (fs::is_regular_file(d / "index.html", ec)) return fs::weakly_canonical(d, ec);
    places += (places.empty() ? "" : ", ") + d.string();
  }
  return Error("the explorer's files (index.html) are not in " + (places.empty() ? std::string("any place") : places) +
               "; give their directory with --web DIR");
}

struct Server::Impl {
  ServeOptions opt;
  httplib::Server http;
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
    if (!q.position.is_valid())
      return ApiError{400, "invalid_position", "invalid position: a man stands on its own promotion row"};
    if (q.position.pieces(opposite(q.position.side_to_move)) == 0)
      return ApiError{400, "invalid_position",
                      "invalid position: the side not to move has no pieces (the game is over)"};
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
    if (!q.rulebook.empty()) {
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
            if (!vs->values) vs->values = std::make_unique<TableDirValues>(*vs->rules, opt.tables);
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

  json statutes_of(VariantState& vs, const Query& q) {
    const Rulebook& book = books.at(q.rulebook);
    std::lock_guard lock(vs.statutes_mu);
    if (!vs.values) vs.values = std::make_unique<TableDirValues>(*vs.rules, opt.tables);
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
    http.set_pre_routing_handler([](const httplib::Request&, httplib::Response& res) {
      res.set_header("Access-Control-Allow-Origin", "*");
      request_start() = std::chrono::steady_clock::now();
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

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() {
  stop();
  if (impl_->warm_thread.joinable()) impl_->warm_thread.join();
}

Expected<std::unique_ptr<Server>> Server::create(ServeOptions options) {
  std::error_code ec;
  if (!fs::is_directory(options.tables, ec))
    return Error("tables directory " + options.tables.string() + " does not exist (build tables with `damka generate -o " +
                 options.tables.string() + "`)");
  if (options.threads < 1) return Error("threads must be at least 1");
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  const ServeOptions& opt = impl->opt;
  Impl* self = impl.get();

  // Rulebooks.
  const auto dirs = rulebook_search_path(opt.exe_dir, opt.rulebooks_dir);
  for (const std::string& name : known_rulebooks(dirs)) {
    auto b = load_rulebook(name, dirs);
    if (b) impl->books.emplace(name, std::move(*b));
    else self->log("damka serve: skipping rulebook " + name + ": " + b.message());
  }
  // Tables.
  for (Variant v : all_variants()) {
    auto vs = std::make_unique<VariantState>();
    vs->rules = &rules_of(v);
    TablebaseOptions topt;
    topt.cache_bytes = opt.cache_bytes;
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
    for (const auto& entry : fs::directory_iterator(opt.web_dir, ec)) {
      const std::string mime = mime_of(entry.path());
      if (mime.empty() || !entry.is_regular_file(ec)) continue;
      if (entry.file_size(ec) > kMaxWebFileBytes) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream body;
      body << in.rdbuf();
      if (!in) return Error("cannot read " + entry.path().string());
      impl->web["/" + entry.path().filename().string()] = {body.str(), mime};
    }
    if (ec) return Error("cannot list " + opt.web_dir.string() + ": " + ec.message());
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

  impl->http.new_task_queue = [n = opt.threads] { return new httplib::ThreadPool(static_cast<std::size_t>(n)); };
  impl->http.set_keep_alive_max_count(1000);
  // Headers and body go out in separate writes: without TCP_NODELAY, Nagle's
  // algorithm and the client's delayed ACK hold each answer ~40 ms.
  impl->http.set_tcp_nodelay(true);
  impl->http.set_payload_max_length(64 * 1024);
  impl->install_routes();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Status Server::bind() {
  Impl& s = *impl_;
  if (s.opt.port == 0) {
    s.bound_port = s.http.bind_to_any_port(s.opt.host);
    if (s.bound_port < 0) return Error("cannot bind to " + s.opt.host + " (any port)");
  } else {
    if (s.opt.port < 0 || s.opt.port > 65535) return Error("port must be from 0 to 65535");
    if (!s.http.bind_to_port(s.opt.host, s.opt.port))
      return Error("cannot bind to " + s.opt.host + ":" + std::to_string(s.opt.port) +
                   " (in use, or not an address of this machine)");
    s.bound_port = s.opt.port;
  }
  return Status();
}

int Server::port() const { return impl_->bound_port; }

void Server::run() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.run_mu);
    if (s.stop_requested) return;
    s.run_started = true;
  }
  if (s.opt.warm_statutes && !s.warm_thread.joinable()) s.warm_thread = std::thread([&s] { s.warm_statutes(); });
  s.http.listen_after_bind();
  s.run_done = true;
}

void Server::stop() {
  Impl& s = *impl_;
  bool started;
  {
    std::lock_guard lock(s.run_mu);
    s.stop_requested = true;
    started = s.run_started;
  }
  s.warm_stop = true;
  if (!started) return;
  // run() may not have reached its accept loop yet: wait for it, then stop it.
  while (!s.http.is_running() && !s.run_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.http.stop();
}

std::uint64_t Server::requests() const { return impl_->served.load(); }

}  // namespace damka
