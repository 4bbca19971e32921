// Key-value stores for rendezvous, with torch.distributed's semantics: values are
// bytes; get and wait block until the keys exist or the store's timeout passes
// (DistStoreError); add keeps a decimal integer; compare_set swaps only when the
// current value is the expected one. Every store is safe to use from many threads.
//
//   TCPStore:    a server thread in the master process, clients over TCP (any host)
//   FileStore:   an append-only file with POSIX locks (processes sharing a file system)
//   HashStore:   in memory (threads of one process)
//   PrefixStore: a namespace in another store ("prefix/key")
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/distributed/errors.h"

namespace ember::distributed {

using Bytes = std::vector<uint8_t>;
using Milliseconds = std::chrono::milliseconds;
// torch.distributed's store timeout (Store::kDefaultTimeout): 300 s.
inline constexpr Milliseconds kDefaultStoreTimeout{300000};

Bytes to_bytes(const std::string& s);
std::string to_string(const Bytes& b);

class Store {
 public:
  explicit Store(Milliseconds timeout = kDefaultStoreTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // Waits (up to timeout()) for the key, then returns its value.
  virtual Bytes get(const std::string& key) = 0;
  // Adds amount to the integer stored at key (0 when absent); returns the new value.
  virtual int64_t add(const std::string& key, int64_t amount) = 0;
  // Sets desired when the key holds expected (or is absent and expected is empty);
  // returns the value the key holds afterwards (expected when absent and not set).
  virtual Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) = 0;
  // True when the key existed.
  virtual bool delete_key(const std::string& key) = 0;
  // True when every key exists now (no waiting).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual int64_t num_keys() = 0;
  // Blocks until every key exists; DistStoreError after `timeout`.
  virtual void wait(const std::vector<std::string>& keys, Milliseconds timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout()); }

  // Appends to the value at key (creates it when absent).
  virtual void append(const std::string& key, const Bytes& value);
  std::vector<Bytes> multi_get(const std::vector<std::string>& keys);
  void multi_set(const std::vector<std::string>& keys, const std::vector<Bytes>& values);

  Milliseconds timeout() const;
  void set_timeout(Milliseconds timeout);

 private:
  mutable std::mutex timeout_mutex_;
  Milliseconds timeout_;
};

// In memory, for the threads of one process.
class HashStore : public Store {
 public:
  HashStore();
  ~HashStore() override;
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  using Store::wait;
  void append(const std::string& key, const Bytes& value) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// A file every process opens (a shared file system). world_size > 0: the last of
// that many FileStore objects to be destroyed removes the file (as torch's does).
class FileStore : public Store {
 public:
  FileStore(std::string path, int world_size = -1, Milliseconds timeout = kDefaultStoreTimeout);
  ~FileStore() override;
  const std::string& path() const { return path_; }
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  using Store::wait;

 private:
  struct State;
  std::string path_;
  int world_size_;
  std::unique_ptr<State> state_;
};

struct TCPStoreOptions {
  uint16_t port = 29500;       // 0 on the master: any free port (see TCPStore::port())
  bool is_master = false;
  int world_size = -1;         // -1: unknown (no waiting for workers)
  bool wait_for_workers = true;
  Milliseconds timeout = kDefaultStoreTimeout;
};

// The master runs the server (a thread); every TCPStore, the master's included,
// talks to it as a client over TCP.
class TCPStore : public Store {
 public:
  TCPStore(std::string host, const TCPStoreOptions& options);
  ~TCPStore() override;
  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  using Store::wait;
  void append(const std::string& key, const Bytes& value) override;

  class Server;
  class Client;

 private:
  std::string host_;
  uint16_t port_;
  std::unique_ptr<Server> server_;  // the master's only
  std::unique_ptr<Client> client_;
  // WAITs block their connection until the keys exist: they get their own, so
  // other threads' sets (the ones that end the wait) go through meanwhile.
  std::unique_ptr<Client> wait_client_;
};

// Every key of `store` under "prefix/".
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  const std::string& prefix() const { return prefix_; }
  const std::shared_ptr<Store>& underlying_store() const { return store_; }
  void set(const std::string& key, const Bytes& value) override;
  Bytes get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t amount) override;
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, Milliseconds timeout) override;
  using Store::wait;
  void append(const std::string& key, const Bytes& value) override;

 private:
  std::string key_of(const std::string& key) const { return prefix_ + "/" + key; }
  std::vector<std::string> keys_of(const std::vector<std::string>& keys) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace ember::distributed
