#ifdef EMBER_WITH_GLOO
#include "distributed/gloo_rendezvous.h"

#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

namespace ember::distributed::detail {

namespace {

// gloo's rendezvous keys and values through any ember store.
class GlooStoreAdapter : public gloo::rendezvous::Store {
 public:
  explicit GlooStoreAdapter(std::shared_ptr<distributed::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, Bytes(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    Bytes value = store_->get(key);
    return std::vector<char>(value.begin(), value.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> store_;
};

// True when `host` resolves to an address this machine can bind (torch's test).
bool resolves_to_local_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool usable = false;
  for (addrinfo* a = found; a && !usable; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    usable = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  freeaddrinfo(found);
  return usable;
}

std::shared_ptr<gloo::transport::Device> make_device(const GlooOptions& options) {
  gloo::transport::tcp::attr attr;
  const char* env_iface = std::getenv("GLOO_SOCKET_IFNAME");
  if (!options.interface.empty()) {
    attr.iface = options.interface;
  } else if (!options.hostname.empty()) {
    attr.hostname = options.hostname;
  } else if (env_iface && *env_iface) {
    attr.iface = env_iface;
  } else {
    char name[256] = {0};
    bool have_name = gethostname(name, sizeof(name) - 1) == 0 && name[0];
    attr.hostname = have_name && resolves_to_local_address(name) ? name : "127.0.0.1";
  }
  try {
    return gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    throw DistNetworkError(std::string("ProcessGroupGloo: cannot create the TCP device (") +
                           (attr.iface.empty() ? "host " + attr.hostname : "interface " + attr.iface) +
                           "): " + e.what());
  }
}

}  // namespace

std::shared_ptr<gloo::Context> connect_gloo_context(const std::shared_ptr<Store>& store, int rank,
                                                    int size, const GlooOptions& options) {
  EMBER_CHECK_VALUE(store != nullptr, "ProcessGroupGloo: the store is None");
  EMBER_CHECK_VALUE(size > 0, "ProcessGroupGloo: the group size must be positive, got ", size);
  EMBER_CHECK_VALUE(rank >= 0 && rank < size, "ProcessGroupGloo: rank ", rank,
                    " is out of range for a group of size ", size);
  auto device = make_device(options);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  if (options.timeout > Milliseconds::zero()) context->setTimeout(options.timeout);
  GlooStoreAdapter adapter(store);
  try {
    context->connectFullMesh(adapter, device);
  } catch (const ember::Error&) {
    throw;  // a store timeout: DistStoreError already says which keys
  } catch (const std::exception& e) {
    throw DistBackendError("ProcessGroupGloo: rank " + std::to_string(rank) + " of " +
                           std::to_string(size) + " could not connect to its peers: " + e.what());
  }
  return context;
}

}  // namespace ember::distributed::detail
#endif
