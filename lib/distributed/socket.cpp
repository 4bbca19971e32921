#include "distributed/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "ember/distributed/errors.h"

namespace ember::distributed::detail {

namespace {

std::string errno_text(int err) { return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")"; }

int remaining_ms(Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

// Waits for `events` on fd; false on timeout.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw DistNetworkError("socket poll failed: " + errno_text(errno));
  }
}

int try_listen(int family, uint16_t port, int* err) {
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) { *err = errno; return -1; }
  int one = 1, zero = 0;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int rc;
  if (family == AF_INET6) {
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_any;
    addr.sin6_port = htons(port);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  } else {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(port);
    rc = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  }
  if (rc != 0 || ::listen(fd, 1024) != 0) {
    *err = errno;
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int listen_on(uint16_t port, uint16_t* bound_port) {
  int err6 = 0, err4 = 0;
  int fd = try_listen(AF_INET6, port, &err6);
  if (fd < 0 && err6 != EADDRINUSE) fd = try_listen(AF_INET, port, &err4);
  if (fd < 0) {
    int err = err6 == EADDRINUSE || err4 == 0 ? err6 : err4;
    throw DistNetworkError("TCPStore: the server socket cannot listen on port " +
                           std::to_string(port) + ": " + errno_text(err) +
                           (err == EADDRINUSE ? "; the port is already in use" : ""));
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *bound_port = ntohs(addr.ss_family == AF_INET6
                          ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                          : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return fd;
}

int connect_to(const std::string& host, uint16_t port, Clock::time_point deadline) {
  std::string last_error = "no address";
  auto delay = std::chrono::milliseconds(10);
  for (;;) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    int gai = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (gai != 0) {
      last_error = std::string("cannot resolve the host: ") + gai_strerror(gai);
    } else {
      for (addrinfo* a = found; a; a = a->ai_next) {
        int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) { last_error = errno_text(errno); continue; }
        int flags = ::fcntl(fd, F_GETFL);
        ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
        int err = rc == 0 ? 0 : errno;
        if (err == EINPROGRESS) {
          if (wait_for(fd, POLLOUT, deadline)) {
            socklen_t len = sizeof(err);
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
          } else {
            err = ETIMEDOUT;
          }
        }
        if (err == 0) {
          ::fcntl(fd, F_SETFL, flags);
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          ::freeaddrinfo(found);
          return fd;
        }
        last_error = errno_text(err);
        ::close(fd);
      }
      ::freeaddrinfo(found);
    }
    if (Clock::now() + delay >= deadline) break;
    std::this_thread::sleep_for(delay);  // the server may not be up yet
    delay = std::min(delay * 2, std::chrono::milliseconds(500));
  }
  throw DistNetworkError("TCPStore: the client socket timed out trying to connect to (" + host +
                         ", " + std::to_string(port) + "): " + last_error);
}

void close_socket(int fd) {
  if (fd >= 0) ::close(fd);
}

void send_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw DistNetworkError("TCPStore: send failed: " + errno_text(errno));
    p += n;
    size -= static_cast<size_t>(n);
  }
}

bool recv_all(int fd, void* data, size_t size, Clock::time_point deadline) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    if (!wait_for(fd, POLLIN, deadline)) return false;
    ssize_t n = ::recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) throw DistNetworkError("TCPStore: the server closed the connection");
    if (n < 0) throw DistNetworkError("TCPStore: receive failed: " + errno_text(errno));
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace ember::distributed::detail
