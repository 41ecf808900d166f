// GateStream (gate_stream.hpp).
#include "gate_stream.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace damka::serve_detail {
namespace {

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  const int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len)
                      : ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return;
  char text[INET6_ADDRSTRLEN] = "";
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

}  // namespace

bool GateStream::wait(short events, bool bounded_by_deadline) const {
  using namespace std::chrono;
  auto limit = io_timeout_;
  if (bounded_by_deadline) {
    const auto left = duration_cast<milliseconds>(deadline_ - steady_clock::now());
    if (left.count() <= 0) return false;
    limit = std::min(limit, left);
  }
  pollfd p{fd_, events, 0};
  for (;;) {
    const int n = ::poll(&p, 1, static_cast<int>(limit.count()));
    if (n < 0 && errno == EINTR) continue;
    return n > 0;
  }
}

bool GateStream::is_readable() const { return pos_ < buf_.size() || wait(POLLIN, true); }

bool GateStream::is_writable() const { return wait(POLLOUT, false); }

ssize_t GateStream::read(char* ptr, size_t size) {
  if (pos_ < buf_.size()) {
    const std::size_t n = std::min(size, buf_.size() - pos_);
    std::memcpy(ptr, buf_.data() + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  if (!wait(POLLIN, true)) return -1;
  for (;;) {
    const ssize_t n = ::recv(fd_, ptr, size, 0);
    if (n < 0 && errno == EINTR) continue;
    return n;
  }
}

ssize_t GateStream::write(const char* ptr, size_t size) {
  std::size_t done = 0;
  while (done < size) {
    if (!wait(POLLOUT, false)) return -1;
    const ssize_t n = ::send(fd_, ptr + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    done += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(size);
}

void GateStream::get_remote_ip_and_port(std::string& ip, int& port) const { address_of(fd_, true, ip, port); }

void GateStream::get_local_ip_and_port(std::string& ip, int& port) const { address_of(fd_, false, ip, port); }

}  // namespace damka::serve_detail
