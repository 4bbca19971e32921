// Atomic file writes (atomic_file.h): temporary file, fsync, rename.
#include "serialize/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "ember/error.h"

namespace ember::serialize {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// "dir/name" -> "dir" ("." for a bare name, "/" for "/name").
std::string parent_dir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Creates "dir/.name.tmp-<random>" exclusively. open() with mode 0666 lets the
// umask decide the permissions, as for any new file (mkstemp would force 0600).
int create_temp_next_to(const std::string& path, std::string& temp_path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::random_device entropy;
  int err = 0;
  for (int attempt = 0; attempt < 64; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".tmp-%08x%08x", entropy(), entropy());
    temp_path = dir + "." + base + suffix;
    int fd = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    err = errno;
    if (err != EEXIST) break;
  }
  throw Error(detail::str("cannot write '", path, "': cannot create a temporary file in '",
                          parent_dir(path), "': ", errno_text(err)));
}

// Makes the rename itself durable. Some filesystems cannot fsync a directory;
// the file is complete under its name either way, so failures are ignored.
void sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  EMBER_CHECK_VALUE(!path_.empty() && path_.back() != '/', "cannot write '", path_,
                    "': not a file name");
  fd_ = create_temp_next_to(path_, temp_path_);
}

AtomicFileWriter::~AtomicFileWriter() { discard(); }

void AtomicFileWriter::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
}

void AtomicFileWriter::write(const void* data, size_t n) {
  EMBER_CHECK(fd_ >= 0, "cannot write '", path_, "': the file was already committed");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t done = ::write(fd_, p, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) {
      int err = done < 0 ? errno : EIO;
      discard();
      throw Error(detail::str("cannot write '", path_, "': ", errno_text(err)));
    }
    p += done;
    n -= static_cast<size_t>(done);
  }
}

void AtomicFileWriter::commit() {
  EMBER_CHECK(fd_ >= 0, "cannot write '", path_, "': the file was already committed");
  int err = 0;
  if (::fsync(fd_) != 0) err = errno;
  if (::close(fd_) != 0 && err == 0) err = errno;  // NFS reports write errors here
  fd_ = -1;
  if (err == 0 && ::rename(temp_path_.c_str(), path_.c_str()) != 0) err = errno;
  if (err != 0) {
    discard();
    throw Error(detail::str("cannot write '", path_, "': ", errno_text(err)));
  }
  committed_ = true;
  temp_path_.clear();
  sync_directory(parent_dir(path_));
}

void write_file_atomically(const std::string& path,
                           const std::function<void(AtomicFileWriter&)>& body) {
  AtomicFileWriter writer(path);
  body(writer);
  writer.commit();
}

}  // namespace ember::serialize
