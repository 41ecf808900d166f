// The door of `damka serve`: every connection waits here, costing no worker
// thread, until one whole request has arrived (its headers, and its body up
// to Content-Length); only then is it handed to a worker.  A client that
// sends slowly or not at all therefore never holds a worker: a connection
// whose request has not arrived within `read_timeout`, or that sends nothing
// for `idle_timeout` (between kept-alive requests too), is answered 408 and
// closed.  Each client address may hold at most `per_client` connections and
// all clients together `total`; the excess is answered 503 at once.
//
// One thread (epoll) reads every waiting connection.  Thread-safe: admit()
// and come_back() are called from the accept thread and the workers.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace damka::serve_detail {

struct GateLimits {
  std::chrono::milliseconds read_timeout{10000};  // a request must arrive whole within this
  std::chrono::milliseconds idle_timeout{5000};   // no byte for this long closes a waiting connection
  int per_client = 32;                            // connections one client address may hold
  int total = 512;                                // connections held in all
};

// A connection whose request has arrived: the socket (blocking mode), the
// bytes read so far (the whole request, perhaps more), the client's address.
struct ReadyConnection {
  int fd = -1;
  std::string bytes;
  std::string client;
};

class ConnectionGate {
 public:
  // `ready` is called on the gate's thread for each connection whose request
  // has arrived; it must return quickly (queue it for a worker).  `log` gets
  // one line per connection refused or timed out.
  ConnectionGate(GateLimits limits, std::function<void(ReadyConnection)> ready,
                 std::function<void(const std::string&)> log);
  ~ConnectionGate();  // stop(), then closes every waiting connection
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  // A freshly accepted socket (the gate owns it from now on): refused with
  // 503 when its client holds `per_client` connections or the gate `total`,
  // else it waits for its request.  Cost: a getpeername and an epoll_ctl.
  void admit(int fd);
  // A worker finished a request and the connection stays open: it waits
  // again, with `leftover` (bytes already read past that request).
  void come_back(ReadyConnection c);
  // A worker closed a connection: its client may open another.
  void closed(const std::string& client);
  // Stops the gate's thread (idempotent); waiting connections are closed.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A whole HTTP answer with a small JSON error body ({"code","error"}), Connection: close.
std::string raw_error(int status, const char* reason, const std::string& code, const std::string& message);

// Writes raw_error(...) and closes nothing: best effort, never
// blocks (the socket may be non-blocking; a full buffer drops the answer).
void send_raw_error(int fd, int status, const char* reason, const std::string& code, const std::string& message);

// Whether `bytes` starts with one whole request (headers and, when they
// give a Content-Length, that many bytes of body); `too_large` is set when
// its headers exceed the limit.  Cost: a scan of the headers.
bool request_complete(const std::string& bytes, bool& too_large);

}  // namespace damka::serve_detail
