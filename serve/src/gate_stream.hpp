// The httplib::Stream a worker serves a gated connection through
// (connection_gate.hpp): first the bytes the gate already read, then the
// socket, every read bounded by the connection's deadline (a body trickled
// in byte by byte cannot hold a worker past it) and each read and write by
// the idle timeout.  Not thread-safe: one worker uses it.
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>

namespace damka::serve_detail {

class GateStream final : public httplib::Stream {
 public:
  GateStream(int fd, std::string bytes, std::chrono::steady_clock::time_point deadline,
             std::chrono::milliseconds io_timeout)
      : fd_(fd), buf_(std::move(bytes)), deadline_(deadline), io_timeout_(io_timeout) {}

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

  // The bytes read but not consumed (a pipelined next request).
  std::string leftover() const { return buf_.substr(pos_); }

 private:
  // Waits for `events` on the socket, at most the io timeout and never past the deadline.
  bool wait(short events, bool bounded_by_deadline) const;
  int fd_;
  std::string buf_;
  std::size_t pos_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::milliseconds io_timeout_;
};

// httplib's Server with a public door to its request processing: serves one
// request read from `strm` (process_request is protected in cpp-httplib 0.11).
class GatedHttp : public httplib::Server {
 public:
  bool serve_one(httplib::Stream& strm, bool close_connection, bool& connection_closed) {
    return process_request(strm, close_connection, connection_closed, nullptr);
  }
};

}  // namespace damka::serve_detail
