// AtomicFileWriter: writes a file so that its name only ever holds a complete file.
// The bytes go to a temporary file in the same directory (so that rename stays on
// one filesystem); commit() flushes them to disk and renames the temporary over the
// target. Until then the target keeps its old contents, and a writer destroyed
// without commit() (an exception, a failed write) removes its temporary file. A
// crash of the whole process can leave the temporary behind, never a half-written
// target. Used for the safetensors files of ember::save and the model files of the
// tracer.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace ember::serialize {

class AtomicFileWriter {
 public:
  // Creates the temporary file next to `path`; throws ember::Error if it cannot.
  explicit AtomicFileWriter(std::string path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();  // without commit(): closes and removes the temporary file

  // Appends n bytes (all of them, or throws ember::Error naming the target).
  void write(const void* data, size_t n);
  // fsync, close, rename over the target, fsync the directory. Once only.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  void discard() noexcept;

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// Runs body(writer) and commits; if body throws, the target is left untouched.
void write_file_atomically(const std::string& path,
                           const std::function<void(AtomicFileWriter&)>& body);

}  // namespace ember::serialize
