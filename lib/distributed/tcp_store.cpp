// TCPStore: the client half (every process, the master included, talks to the
// server over a socket) and the store operations as requests.
#include <thread>

#include "distributed/socket.h"
#include "distributed/store_semantics.h"
#include "distributed/tcp_store_protocol.h"
#include "distributed/tcp_store_server.h"

namespace ember::distributed {

using detail::Clock;
using detail::Message;
using detail::TCPStoreCommand;
using detail::TCPStoreStatus;

namespace {
// The key every TCPStore adds 1 to when it connects: the master waits for it to
// reach world_size (wait_for_workers), as torch's TCPStore does.
const char* const kInitKey = "init/";

Clock::time_point deadline_after(Milliseconds timeout) {
  return timeout > Milliseconds::zero() ? Clock::now() + timeout : Clock::time_point::max();
}
}  // namespace

class TCPStore::Client {
 public:
  Client(std::string host, uint16_t port, Milliseconds timeout)
      : host_(std::move(host)), port_(port) {
    fd_ = detail::connect_to(host_, port_, deadline_after(timeout));
  }
  ~Client() { detail::close_socket(fd_); }

  // One request and its reply. Returns false when the deadline passed first; the
  // connection is then replaced, so a late reply cannot be mistaken for the next one.
  bool call(TCPStoreCommand command, const Message& args, Clock::time_point deadline,
            TCPStoreStatus* status, Message* reply, Milliseconds connect_timeout) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string request = detail::encode_message(static_cast<uint8_t>(command), args);
    detail::send_all(fd_, request.data(), request.size());
    uint8_t head;
    uint32_t count;
    if (!detail::recv_all(fd_, &head, 1, deadline)) {
      detail::close_socket(fd_);
      fd_ = -1;
      fd_ = detail::connect_to(host_, port_, deadline_after(connect_timeout));
      return false;
    }
    // The rest of a reply follows at once.
    auto rest = Clock::time_point::max();
    detail::recv_all(fd_, &count, 4, rest);
    reply->assign(count, std::string());
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t len;
      detail::recv_all(fd_, &len, 4, rest);
      (*reply)[i].resize(len);
      if (len) detail::recv_all(fd_, (*reply)[i].data(), len, rest);
    }
    *status = static_cast<TCPStoreStatus>(head);
    return true;
  }

 private:
  std::mutex mutex_;
  std::string host_;
  uint16_t port_;
  int fd_ = -1;
};

namespace {

// A request that always gets its reply (everything but WAIT).
Message request(TCPStore::Client& client, TCPStoreCommand command, const Message& args,
                Milliseconds timeout, TCPStoreStatus* status_out = nullptr) {
  TCPStoreStatus status;
  Message reply;
  if (!client.call(command, args, deadline_after(timeout), &status, &reply, timeout))
    throw DistStoreError("TCPStore: the server did not answer within " +
                         std::to_string(timeout.count()) + "ms");
  if (status_out) {
    *status_out = status;
    return reply;
  }
  if (status == TCPStoreStatus::VALUE_ERROR) throw ValueError(reply.empty() ? "" : reply[0]);
  if (status != TCPStoreStatus::OK)
    throw DistStoreError("TCPStore: the server refused a request: " +
                         (reply.empty() ? std::string() : reply[0]));
  return reply;
}

}  // namespace

TCPStore::TCPStore(std::string host, const TCPStoreOptions& options)
    : Store(options.timeout), host_(std::move(host)), port_(options.port) {
  EMBER_CHECK_VALUE(!host_.empty(), "TCPStore: the host name is empty");
  if (options.is_master) {
    server_ = std::make_unique<Server>(options.port);
    port_ = server_->port();
  }
  client_ = std::make_unique<Client>(host_, port_, options.timeout);
  wait_client_ = std::make_unique<Client>(host_, port_, options.timeout);
  if (options.world_size > 0 || options.is_master) add(kInitKey, 1);
  if (options.is_master && options.wait_for_workers && options.world_size > 0) {
    auto deadline = deadline_after(options.timeout);
    int64_t joined;
    while ((joined = add(kInitKey, 0)) < options.world_size) {
      if (Clock::now() >= deadline)
        throw DistStoreError("TCPStore: timed out after " + std::to_string(options.timeout.count()) +
                             "ms waiting for " + std::to_string(options.world_size) +
                             " workers (" + std::to_string(joined) + " joined)");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

TCPStore::~TCPStore() {
  wait_client_.reset();  // the clients before the server they talk to
  client_.reset();
  server_.reset();
}

void TCPStore::set(const std::string& key, const Bytes& value) {
  request(*client_, TCPStoreCommand::SET, {key, to_string(value)}, timeout());
}

Bytes TCPStore::get(const std::string& key) {
  wait({key});
  TCPStoreStatus status;
  Message reply = request(*client_, TCPStoreCommand::GET, {key}, timeout(), &status);
  if (status != TCPStoreStatus::OK)  // deleted between the wait and now
    throw DistStoreError("TCPStore: key '" + key + "' was deleted while being read");
  return to_bytes(reply.at(0));
}

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  return std::stoll(request(*client_, TCPStoreCommand::ADD, {key, std::to_string(amount)},
                            timeout()).at(0));
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return to_bytes(request(*client_, TCPStoreCommand::COMPARE_SET,
                          {key, to_string(expected), to_string(desired)}, timeout()).at(0));
}

bool TCPStore::delete_key(const std::string& key) {
  return request(*client_, TCPStoreCommand::DELETE_KEY, {key}, timeout()).at(0) == "1";
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  return request(*client_, TCPStoreCommand::CHECK, Message(keys.begin(), keys.end()),
                 timeout()).at(0) == "1";
}

int64_t TCPStore::num_keys() {
  return std::stoll(request(*client_, TCPStoreCommand::NUM_KEYS, {}, timeout()).at(0));
}

void TCPStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  TCPStoreStatus status;
  Message reply;
  if (!wait_client_->call(TCPStoreCommand::WAIT, Message(keys.begin(), keys.end()),
                     deadline_after(timeout), &status, &reply, this->timeout()))
    throw DistStoreError(detail::timeout_message("TCPStore", timeout, keys));
}

void TCPStore::append(const std::string& key, const Bytes& value) {
  request(*client_, TCPStoreCommand::APPEND, {key, to_string(value)}, timeout());
}

}  // namespace ember::distributed
