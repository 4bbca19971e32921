// Blocking TCP sockets with deadlines, for the TCPStore's server and clients.
// Failures raise DistNetworkError naming the host, the port and errno's words.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace ember::distributed::detail {

using Clock = std::chrono::steady_clock;

// A listening socket on every interface (IPv6 with IPv4 mapped, else IPv4) at
// `port` (0: a free one, written to *bound_port).
int listen_on(uint16_t port, uint16_t* bound_port);
// Connects to host:port, retrying while nothing listens there yet, until deadline.
int connect_to(const std::string& host, uint16_t port, Clock::time_point deadline);
void close_socket(int fd);
// Sends every byte (no SIGPIPE; a closed peer raises).
void send_all(int fd, const void* data, size_t size);
// Receives exactly size bytes. False when the deadline passes first; raises when the
// peer closes. A deadline of time_point::max() waits forever.
bool recv_all(int fd, void* data, size_t size, Clock::time_point deadline);

}  // namespace ember::distributed::detail
