// The door of `damka serve` (connection_gate.hpp).
#include "connection_gate.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace damka::serve_detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxHeaderBytes = 64 * 1024;  // headers longer than this: 431
constexpr std::size_t kMaxWaitedBody = 64 * 1024;   // bodies up to this arrive before a worker is taken

std::string client_of(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "?";
  char text[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, text, sizeof text);
  else if (addr.ss_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, text, sizeof text);
  return text;
}

void set_blocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool request_complete(const std::string& bytes, bool& too_large) {
  too_large = false;
  std::size_t end = bytes.find("\r\n\r\n");
  std::size_t sep = 4;
  if (const std::size_t lf = bytes.find("\n\n"); lf != std::string::npos && (end == std::string::npos || lf < end)) {
    end = lf;
    sep = 2;
  }
  if (end == std::string::npos) {
    too_large = bytes.size() > kMaxHeaderBytes;
    return false;
  }
  if (end > kMaxHeaderBytes) {
    too_large = true;
    return false;
  }
  const std::string headers = lower(std::string_view(bytes).substr(0, end));
  // A chunked body is read by the worker, under the connection's deadline.
  if (headers.find("\ntransfer-encoding:") != std::string::npos) return true;
  const std::size_t at = headers.find("\ncontent-length:");
  if (at == std::string::npos) return true;
  std::size_t i = at + 16;
  while (i < headers.size() && (headers[i] == ' ' || headers[i] == '\t')) ++i;
  std::uint64_t length = 0;
  bool digits = false;
  while (i < headers.size() && std::isdigit(static_cast<unsigned char>(headers[i])) && length <= kMaxWaitedBody) {
    length = length * 10 + static_cast<std::uint64_t>(headers[i++] - '0');
    digits = true;
  }
  // Malformed or larger than we wait for: the worker answers (400, 413).
  if (!digits || length > kMaxWaitedBody) return true;
  return bytes.size() >= end + sep + length;
}

std::string raw_error(int status, const char* reason, const std::string& code, const std::string& message) {
  std::string body = "{\"code\":\"" + code + "\",\"error\":\"";
  for (char c : message) {
    if (c == '"' || c == '\\') body += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) body += c;
  }
  body += "\"}";
  const std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\nConnection: close\r\n" + (status == 503 ? "Retry-After: 1\r\n" : "") + "\r\n";
  return head + body;
}

void send_raw_error(int fd, int status, const char* reason, const std::string& code, const std::string& message) {
  const std::string all = raw_error(status, reason, code, message);
  [[maybe_unused]] const ssize_t n = ::send(fd, all.data(), all.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

struct ConnectionGate::Impl {
  struct Waiting {
    ReadyConnection c;
    Clock::time_point started, last_byte;
  };
  GateLimits limits;
  std::function<void(ReadyConnection)> ready;
  std::function<void(const std::string&)> log;
  int epoll_fd = -1, wake_fd = -1;
  std::mutex mu;
  std::map<int, Waiting> waiting;              // by fd; guarded by mu
  std::map<std::string, int> per_client;       // connections held; guarded by mu
  int held = 0;                                // guarded by mu
  bool stopped = false;                        // guarded by mu
  std::thread thread;

  // Forgets a connection the gate closes (mu held).
  void drop_locked(int fd) {
    auto it = waiting.find(fd);
    if (it == waiting.end()) return;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
    release_locked(it->second.c.client);
    waiting.erase(it);
    ::close(fd);
  }
  void release_locked(const std::string& client) {
    if (auto pc = per_client.find(client); pc != per_client.end() && --pc->second <= 0) per_client.erase(pc);
    --held;
  }

  // Starts waiting for `c`'s request (mu held); false when the gate has stopped.
  void wait_locked(ReadyConnection c) {
    set_blocking(c.fd, false);
    const int fd = c.fd;
    const auto now = Clock::now();
    waiting[fd] = Waiting{std::move(c), now, now};
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = fd;
    if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) drop_locked(fd);
  }

  // Reads what `fd` has; hands the connection on when its request is whole.
  void on_readable(int fd) {
    std::unique_lock lock(mu);
    auto it = waiting.find(fd);
    if (it == waiting.end()) return;
    Waiting& w = it->second;
    char buf[16384];
    bool eof = false;
    for (;;) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n > 0) {
        w.c.bytes.append(buf, static_cast<std::size_t>(n));
        w.last_byte = Clock::now();
        if (w.c.bytes.size() > kMaxHeaderBytes + kMaxWaitedBody + sizeof buf) break;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      eof = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
      break;
    }
    bool too_large = false;
    if (request_complete(w.c.bytes, too_large)) {
      ReadyConnection c = std::move(w.c);
      ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
      waiting.erase(it);
      set_blocking(c.fd, true);
      lock.unlock();
      ready(std::move(c));
      return;
    }
    if (too_large) {
      send_raw_error(fd, 431, "Request Header Fields Too Large", "too_large", "request headers too large");
      if (log) log("damka serve: " + w.c.client + ": request headers over 64 KiB, closed (431)");
      drop_locked(fd);
      return;
    }
    if (eof) drop_locked(fd);
  }

  // Closes the connections past their deadlines.
  void expire() {
    std::lock_guard lock(mu);
    const auto now = Clock::now();
    std::vector<int> late;
    for (auto& [fd, w] : waiting) {
      const bool idle = now - w.last_byte >= limits.idle_timeout;
      const bool slow = now - w.started >= limits.read_timeout;
      if (!idle && !slow) continue;
      if (!w.c.bytes.empty()) {
        send_raw_error(fd, 408, "Request Timeout", "timeout",
                       slow ? "the request did not arrive within the read timeout"
                            : "the client sent nothing for the idle timeout");
        if (log) log("damka serve: " + w.c.client + ": " + (slow ? "request too slow" : "request stalled") +
                     ", closed (408)");
      }
      late.push_back(fd);  // an idle connection with no request: closed quietly
    }
    for (int fd : late) drop_locked(fd);
  }

  void loop() {
    epoll_event events[64];
    for (;;) {
      const int n = ::epoll_wait(epoll_fd, events, 64, 50);
      {
        std::lock_guard lock(mu);
        if (stopped) return;
      }
      for (int i = 0; i < n; ++i) {
        if (events[i].data.fd == wake_fd) continue;
        on_readable(events[i].data.fd);
      }
      expire();
    }
  }
};

ConnectionGate::ConnectionGate(GateLimits limits, std::function<void(ReadyConnection)> ready,
                               std::function<void(const std::string&)> log)
    : impl_(std::make_unique<Impl>()) {
  impl_->limits = limits;
  impl_->ready = std::move(ready);
  impl_->log = std::move(log);
  impl_->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  impl_->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = impl_->wake_fd;
  ::epoll_ctl(impl_->epoll_fd, EPOLL_CTL_ADD, impl_->wake_fd, &ev);
  impl_->thread = std::thread([this] { impl_->loop(); });
}

ConnectionGate::~ConnectionGate() {
  stop();
  std::lock_guard lock(impl_->mu);
  for (auto& [fd, w] : impl_->waiting) ::close(fd);
  impl_->waiting.clear();
  ::close(impl_->epoll_fd);
  ::close(impl_->wake_fd);
}

void ConnectionGate::stop() {
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopped) return;
    impl_->stopped = true;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t w = ::write(impl_->wake_fd, &one, sizeof one);
  if (impl_->thread.joinable()) impl_->thread.join();
}

void ConnectionGate::admit(int fd) {
  ReadyConnection c;
  c.fd = fd;
  c.client = client_of(fd);
  std::unique_lock lock(impl_->mu);
  int& mine = impl_->per_client[c.client];
  if (impl_->stopped || mine >= impl_->limits.per_client || impl_->held >= impl_->limits.total) {
    const bool per_client = mine >= impl_->limits.per_client;
    if (mine == 0) impl_->per_client.erase(c.client);
    lock.unlock();
    send_raw_error(fd, 503, "Service Unavailable", "too_many_connections",
                   per_client ? "this client holds " + std::to_string(impl_->limits.per_client) +
                                    " connections already; close one and try again"
                              : "the server holds too many connections; try again");
    if (impl_->log)
      impl_->log("damka serve: " + c.client + ": too many connections" + (per_client ? " from this client" : "") +
                 ", refused (503)");
    ::close(fd);
    return;
  }
  ++mine;
  ++impl_->held;
  impl_->wait_locked(std::move(c));
}

void ConnectionGate::come_back(ReadyConnection c) {
  std::unique_lock lock(impl_->mu);
  if (impl_->stopped) {
    impl_->release_locked(c.client);
    ::close(c.fd);
    return;
  }
  bool too_large = false;
  if (!c.bytes.empty() && request_complete(c.bytes, too_large)) {  // pipelined: ready at once
    lock.unlock();
    impl_->ready(std::move(c));
    return;
  }
  impl_->wait_locked(std::move(c));
}

void ConnectionGate::closed(const std::string& client) {
  std::lock_guard lock(impl_->mu);
  impl_->release_locked(client);
}

}  // namespace damka::serve_detail
