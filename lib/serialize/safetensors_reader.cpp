// Reading safetensors files (safetensors.h) from a file or from memory into
// tensors that own their memory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>

#include "ember/ops/factories.h"
#include "serialize/safetensors.h"

namespace ember::serialize {

// The data section is little-endian; ember copies it into memory as it is.
static_assert(std::endian::native == std::endian::little,
              "ember's safetensors reader and writer assume a little-endian machine");

FileSource::FileSource(const std::string& path)
    : ByteSource("'" + path + "'"),
      fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)),
      owns_fd_(true) {
  EMBER_CHECK(fd_ >= 0, "cannot open '", path, "': ", std::strerror(errno));
  init_size();
}

FileSource::FileSource(int fd, std::string name)
    : ByteSource(std::move(name)), fd_(fd), owns_fd_(false) {
  init_size();
}

FileSource::~FileSource() {
  if (owns_fd_) ::close(fd_);
}

void FileSource::init_size() {
  struct stat st;
  int err = ::fstat(fd_, &st) == 0 ? 0 : errno;
  if (err == 0 && !S_ISREG(st.st_mode)) err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
  if (err != 0) {
    if (owns_fd_) ::close(fd_);  // the destructor does not run for a throwing constructor
    throw Error(detail::str("cannot read ", name_, ": ",
                            err == EINVAL ? "not a regular file" : std::strerror(err)));
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

void FileSource::read_at(uint64_t offset, void* dst, size_t n) const {
  char* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(detail::str("cannot read ", name_, ": ", std::strerror(errno)));
    if (got == 0) bad_file(name_, "the file ended early (was it truncated while being read?)");
    p += got;
    offset += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
}

void MemorySource::read_at(uint64_t offset, void* dst, size_t n) const {
  EMBER_CHECK(offset <= bytes_.size() && n <= bytes_.size() - offset, "read past the end of ",
              name_);
  std::memcpy(dst, bytes_.data() + offset, n);
}

namespace {

uint64_t read_header_length(const ByteSource& source) {
  if (source.size() < 8)
    bad_file(source.name(), "it has ", source.size(),
             " bytes, fewer than the 8 that give the header's length");
  unsigned char bytes[8];
  source.read_at(0, bytes, 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  if (n > kMaxHeaderBytes)
    bad_file(source.name(), "the header length ", n, " is over the limit of ", kMaxHeaderBytes,
             " bytes");
  if (n > source.size() - 8)
    bad_file(source.name(), "the header length ", n, " runs past the end of the file (",
             source.size(), " bytes)");
  return n;
}

// A bool is one byte that must be 0 or 1: any other value read as bool is
// undefined behaviour in C++, so it is refused rather than loaded.
void check_bool_bytes(const Tensor& t, const std::string& name, const ByteSource& source) {
  const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i)
    if (bytes[i] > 1)
      bad_file(source.name(), "BOOL tensor '", name, "' holds the byte ", int(bytes[i]),
               " (only 0 and 1 are booleans)");
}

}  // namespace

Header read_header(const ByteSource& source, uint64_t* data_start) {
  uint64_t header_bytes = read_header_length(source);
  std::string text(header_bytes, '\0');
  source.read_at(8, text.data(), text.size());
  if (data_start) *data_start = 8 + header_bytes;
  return parse_header(text, source.size() - 8 - header_bytes, source.name());
}

Contents read_safetensors(const ByteSource& source) {
  // Everything is checked here, before any tensor memory is allocated: the
  // tensors tile the data section, so together they are no larger than the file.
  uint64_t data_start;
  Header header = read_header(source, &data_start);
  Contents contents;
  contents.metadata = std::move(header.metadata);
  contents.tensors.reserve(header.tensors.size());
  for (TensorEntry& e : header.tensors) {
    Tensor t = empty(e.shape, TensorOptions(e.dtype));
    if (e.end > e.begin) source.read_at(data_start + e.begin, t.data_ptr(), e.end - e.begin);
    if (e.dtype == kBool) check_bool_bytes(t, e.name, source);
    contents.tensors.emplace_back(std::move(e.name), std::move(t));
  }
  return contents;
}

}  // namespace ember::serialize
