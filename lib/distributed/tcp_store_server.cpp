#include "distributed/tcp_store_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <list>
#include <map>

#include "distributed/socket.h"
#include "distributed/store_semantics.h"
#include "distributed/tcp_store_protocol.h"

namespace ember::distributed {

using detail::Message;
using detail::TCPStoreCommand;
using detail::TCPStoreStatus;

namespace {

struct ParkedWait {
  int fd;
  std::vector<std::string> keys;
};

class ServerState {
 public:
  // Handles one request; false when the reply is deferred (a WAIT parked).
  bool handle(int fd, uint8_t command, const Message& args, std::string* reply) {
    auto ok = [&](const Message& out) {
      *reply = detail::encode_message(static_cast<uint8_t>(TCPStoreStatus::OK), out);
      return true;
    };
    auto fail = [&](TCPStoreStatus status, const std::string& why) {
      *reply = detail::encode_message(static_cast<uint8_t>(status), {why});
      return true;
    };
    auto want = [&](size_t n) { return args.size() == n; };
    switch (static_cast<TCPStoreCommand>(command)) {
      case TCPStoreCommand::SET:
        if (!want(2)) break;
        map_[args[0]] = to_bytes(args[1]);
        return ok({});
      case TCPStoreCommand::GET: {
        if (!want(1)) break;
        auto it = map_.find(args[0]);
        if (it == map_.end()) return fail(TCPStoreStatus::NOT_FOUND, args[0]);
        return ok({to_string(it->second)});
      }
      case TCPStoreCommand::ADD: {
        if (!want(2)) break;
        try {
          int64_t value = detail::add_to(map_, args[0], std::stoll(args[1]));
          return ok({std::to_string(value)});
        } catch (const std::exception& e) {
          return fail(TCPStoreStatus::VALUE_ERROR, e.what());
        }
      }
      case TCPStoreCommand::COMPARE_SET:
        if (!want(3)) break;
        return ok({to_string(detail::compare_set_in(map_, args[0], to_bytes(args[1]),
                                                    to_bytes(args[2])))});
      case TCPStoreCommand::DELETE_KEY:
        if (!want(1)) break;
        return ok({map_.erase(args[0]) ? "1" : "0"});
      case TCPStoreCommand::CHECK:
        return ok({detail::has_all(map_, args) ? "1" : "0"});
      case TCPStoreCommand::NUM_KEYS:
        return ok({std::to_string(map_.size())});
      case TCPStoreCommand::WAIT:
        if (detail::has_all(map_, args)) return ok({});
        waits_.push_back({fd, args});
        return false;
      case TCPStoreCommand::APPEND: {
        if (!want(2)) break;
        Bytes& value = map_[args[0]];
        value.insert(value.end(), args[1].begin(), args[1].end());
        return ok({});
      }
    }
    return fail(TCPStoreStatus::BAD_REQUEST, "bad request (command " + std::to_string(command) + ")");
  }

  // The parked waits whose keys all exist now: their clients get their replies.
  std::vector<int> ready_waits() {
    std::vector<int> ready;
    for (auto it = waits_.begin(); it != waits_.end();) {
      if (detail::has_all(map_, it->keys)) {
        ready.push_back(it->fd);
        it = waits_.erase(it);
      } else {
        ++it;
      }
    }
    return ready;
  }

  void forget(int fd) {
    waits_.remove_if([fd](const ParkedWait& w) { return w.fd == fd; });
  }

 private:
  detail::KeyValueMap map_;
  std::list<ParkedWait> waits_;
};

}  // namespace

TCPStore::Server::Server(uint16_t port) {
  listen_fd_ = detail::listen_on(port, &port_);
  if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    detail::close_socket(listen_fd_);
    throw DistNetworkError("TCPStore: cannot create the server's wake-up pipe");
  }
  thread_ = std::thread([this] { run(); });
}

TCPStore::Server::~Server() {
  char byte = 0;
  ssize_t ignored = ::write(wake_pipe_[1], &byte, 1);
  (void)ignored;
  thread_.join();
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
  detail::close_socket(listen_fd_);
}

void TCPStore::Server::run() {
  ServerState state;
  std::map<int, std::string> pending;  // each client's bytes not yet parsed
  auto drop = [&](int fd) {
    state.forget(fd);
    pending.erase(fd);
    ::close(fd);
  };
  auto reply_to = [&](int fd, const std::string& reply) {
    try {
      detail::send_all(fd, reply.data(), reply.size());
      return true;
    } catch (const std::exception&) {
      return false;  // the client went away; its socket is dropped below
    }
  };
  for (;;) {
    std::vector<pollfd> fds{{wake_pipe_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const auto& [fd, buffer] : pending) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) {  // the store is being destroyed
      for (const auto& [fd, buffer] : pending) ::close(fd);
      return;
    }
    if (fds[1].revents & POLLIN) {
      int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client >= 0) pending[client] = std::string();
    }
    std::vector<int> closed;
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      int fd = fds[i].fd;
      char chunk[65536];
      ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        closed.push_back(fd);
        continue;
      }
      std::string& buffer = pending[fd];
      buffer.append(chunk, static_cast<size_t>(n));
      uint8_t command;
      Message args;
      size_t consumed;
      bool changed = false;
      while (detail::decode_message(buffer, &command, &args, &consumed)) {
        buffer.erase(0, consumed);
        std::string reply;
        if (state.handle(fd, command, args, &reply) && !reply_to(fd, reply)) {
          closed.push_back(fd);
          break;
        }
        changed = true;
      }
      if (changed) {
        std::string ready_reply = detail::encode_message(static_cast<uint8_t>(TCPStoreStatus::OK), {});
        for (int waiter : state.ready_waits())
          if (!reply_to(waiter, ready_reply)) closed.push_back(waiter);
      }
    }
    for (int fd : closed)
      if (pending.count(fd)) drop(fd);
  }
}

}  // namespace ember::distributed
