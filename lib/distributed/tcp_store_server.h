// The TCPStore server: one thread polling the listening socket and every client,
// serving the key-value map (store_semantics.h). A WAIT is parked until its keys
// exist; a client that disconnects drops its parked waits.
#pragma once
#include <thread>

#include "ember/distributed/store.h"

namespace ember::distributed {

class TCPStore::Server {
 public:
  explicit Server(uint16_t port);  // 0: any free port
  ~Server();
  uint16_t port() const { return port_; }

 private:
  void run();
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace ember::distributed
