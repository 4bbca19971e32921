// FileStore: an append-only log of records (set key value / delete key) in one file.
// Every operation takes the file's lock (flock: shared to read, exclusive to write),
// replays the records written since its last visit into its map, then appends its
// own. Waiting polls, as torch's FileStore does.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "distributed/store_semantics.h"

namespace ember::distributed {

namespace {
constexpr char kSetRecord = 'S';
constexpr char kDeleteRecord = 'D';
// Counts the FileStore objects destroyed; the last of world_size removes the file.
const char* const kCleanupKey = "cleanup/";
constexpr auto kPollInterval = std::chrono::milliseconds(5);

void append_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
}  // namespace

struct FileStore::State {
  std::mutex mutex;
  int fd = -1;
  off_t offset = 0;  // how far this object has replayed the file
  detail::KeyValueMap map;
};

// Holds the file lock of one operation.
class FileLock {
 public:
  FileLock(int fd, int kind, const std::string& path) : fd_(fd) {
    while (flock(fd_, kind) != 0) {
      if (errno != EINTR)
        throw DistStoreError("FileStore: cannot lock " + path + ": " + std::strerror(errno));
    }
  }
  ~FileLock() { flock(fd_, LOCK_UN); }

 private:
  int fd_;
};

namespace {

void replay(int fd, off_t& offset, detail::KeyValueMap& map,
            const std::string& path) {
  off_t end = lseek(fd, 0, SEEK_END);
  if (end < offset) {  // the file was truncated (recreated): start over
    offset = 0;
    map.clear();
  }
  if (end == offset) return;
  std::string data(static_cast<size_t>(end - offset), '\0');
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = pread(fd, data.data() + done, data.size() - done, offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw DistStoreError("FileStore: cannot read " + path + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  size_t pos = 0;
  auto read_u32 = [&](uint32_t& v) {
    if (pos + 4 > data.size()) return false;
    std::memcpy(&v, data.data() + pos, 4);
    pos += 4;
    return true;
  };
  while (pos < data.size()) {
    char kind = data[pos++];
    uint32_t key_len = 0, value_len = 0;
    if (!read_u32(key_len) || pos + key_len > data.size())
      throw DistStoreError("FileStore: " + path + " is corrupt (a record is cut short)");
    std::string key = data.substr(pos, key_len);
    pos += key_len;
    if (kind == kSetRecord) {
      if (!read_u32(value_len) || pos + value_len > data.size())
        throw DistStoreError("FileStore: " + path + " is corrupt (a record is cut short)");
      map[key] = Bytes(data.begin() + static_cast<std::ptrdiff_t>(pos),
                       data.begin() + static_cast<std::ptrdiff_t>(pos + value_len));
      pos += value_len;
    } else if (kind == kDeleteRecord) {
      map.erase(key);
    } else {
      throw DistStoreError("FileStore: " + path + " is not a store file (unknown record)");
    }
  }
  offset = end;
}

void write_record(int fd, off_t& offset, char kind, const std::string& key, const Bytes* value,
                  const std::string& path) {
  std::string record(1, kind);
  append_u32(record, static_cast<uint32_t>(key.size()));
  record += key;
  if (value) {
    append_u32(record, static_cast<uint32_t>(value->size()));
    record.append(reinterpret_cast<const char*>(value->data()), value->size());
  }
  off_t at = lseek(fd, 0, SEEK_END);
  size_t done = 0;
  while (done < record.size()) {
    ssize_t n = pwrite(fd, record.data() + done, record.size() - done, at + done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw DistStoreError("FileStore: cannot write " + path + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  offset = at + static_cast<off_t>(record.size());
}

}  // namespace

FileStore::FileStore(std::string path, int world_size, Milliseconds timeout)
    : Store(timeout), path_(std::move(path)), world_size_(world_size),
      state_(std::make_unique<State>()) {
  EMBER_CHECK_VALUE(!path_.empty(), "FileStore: the file name is empty");
  state_->fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (state_->fd < 0)
    throw DistStoreError("FileStore: cannot open " + path_ + ": " + std::strerror(errno));
}

FileStore::~FileStore() {
  try {
    if (world_size_ > 0 && add(kCleanupKey, 1) >= world_size_) ::unlink(path_.c_str());
  } catch (...) {
    // A destructor must not throw; a file left behind is harmless.
  }
  ::close(state_->fd);
}

// The helpers below run one operation under the object's mutex and the file lock.
#define EMBER_FILE_STORE_OP(lock_kind)                                    \
  std::lock_guard<std::mutex> guard(state_->mutex);                       \
  FileLock file_lock(state_->fd, lock_kind, path_);                       \
  replay(state_->fd, state_->offset, state_->map, path_)

void FileStore::set(const std::string& key, const Bytes& value) {
  EMBER_FILE_STORE_OP(LOCK_EX);
  write_record(state_->fd, state_->offset, kSetRecord, key, &value, path_);
  state_->map[key] = value;
}

Bytes FileStore::get(const std::string& key) {
  wait({key});
  EMBER_FILE_STORE_OP(LOCK_SH);
  auto it = state_->map.find(key);
  if (it == state_->map.end())  // deleted between the wait and now
    throw DistStoreError("FileStore: key '" + key + "' was deleted while being read");
  return it->second;
}

int64_t FileStore::add(const std::string& key, int64_t amount) {
  EMBER_FILE_STORE_OP(LOCK_EX);
  int64_t value = detail::add_to(state_->map, key, amount);
  write_record(state_->fd, state_->offset, kSetRecord, key, &state_->map[key], path_);
  return value;
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  EMBER_FILE_STORE_OP(LOCK_EX);
  bool existed = state_->map.count(key) > 0;
  Bytes before = existed ? state_->map[key] : Bytes{};
  Bytes after = detail::compare_set_in(state_->map, key, expected, desired);
  bool changed = state_->map.count(key) > 0 && (!existed || before != state_->map[key]);
  if (changed) write_record(state_->fd, state_->offset, kSetRecord, key, &state_->map[key], path_);
  return after;
}

bool FileStore::delete_key(const std::string& key) {
  EMBER_FILE_STORE_OP(LOCK_EX);
  if (state_->map.erase(key) == 0) return false;
  write_record(state_->fd, state_->offset, kDeleteRecord, key, nullptr, path_);
  return true;
}

bool FileStore::check(const std::vector<std::string>& keys) {
  EMBER_FILE_STORE_OP(LOCK_SH);
  return detail::has_all(state_->map, keys);
}

int64_t FileStore::num_keys() {
  EMBER_FILE_STORE_OP(LOCK_SH);
  return static_cast<int64_t>(state_->map.size());
}

void FileStore::wait(const std::vector<std::string>& keys, Milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (check(keys)) return;
    if (timeout > Milliseconds::zero() && std::chrono::steady_clock::now() >= deadline)
      throw DistStoreError(detail::timeout_message("FileStore", timeout, keys));
    std::this_thread::sleep_for(kPollInterval);
  }
}

#undef EMBER_FILE_STORE_OP

}  // namespace ember::distributed
