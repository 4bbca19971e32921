// AtomicFileWriter (lib/serialize/atomic_file.h): the target holds either its old
// contents or the complete new ones, and no temporary file is left behind.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "ember/error.h"
#include "serialize/atomic_file.h"
#include "serialize_test_utils.h"

using namespace ember;
using ember::serialize::AtomicFileWriter;
using ember::serialize::write_file_atomically;
using ember::test::TempDir;

TEST_CASE("write_file_atomically writes the whole file under its name", "[serialize]") {
  TempDir dir;
  std::string path = dir.file("out.bin");
  write_file_atomically(path, [](AtomicFileWriter& f) {
    f.write("hello ", 6);
    f.write("world", 5);
  });
  CHECK(ember::test::read_file(path) == "hello world");
  CHECK(dir.entries() == std::vector<std::string>{"out.bin"});
  // Replacing an existing file.
  write_file_atomically(path, [](AtomicFileWriter& f) { f.write("new", 3); });
  CHECK(ember::test::read_file(path) == "new");
  CHECK(dir.entries() == std::vector<std::string>{"out.bin"});
}

TEST_CASE("a new file gets the permissions the umask allows, like any new file", "[serialize]") {
  TempDir dir;
  std::string path = dir.file("perm.bin");
  mode_t old_mask = ::umask(022);
  write_file_atomically(path, [](AtomicFileWriter& f) { f.write("x", 1); });
  ::umask(old_mask);
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE("a failure before commit leaves the old file intact and no temporary", "[serialize]") {
  TempDir dir;
  std::string path = dir.file("model.bin");
  ember::test::write_file(path, "old contents");
  SECTION("the body throws") {
    CHECK_THROWS_AS(write_file_atomically(path,
                                          [](AtomicFileWriter& f) {
                                            f.write("half of the new", 15);
                                            throw std::runtime_error("crash in the middle");
                                          }),
                    std::runtime_error);
  }
  SECTION("the writer is dropped without commit") {
    AtomicFileWriter f(path);
    f.write("partial", 7);
    CHECK(std::filesystem::exists(f.temp_path()));
    CHECK(f.temp_path().rfind(dir.path() + "/.model.bin.tmp-", 0) == 0);
  }
  CHECK(ember::test::read_file(path) == "old contents");
  CHECK(dir.entries() == std::vector<std::string>{"model.bin"});
}

TEST_CASE("a write that fails midway (file size limit) throws and cleans up", "[serialize]") {
  TempDir dir;
  std::string path = dir.file("big.bin");
  ember::test::write_file(path, "old");
  // Writes past RLIMIT_FSIZE fail with EFBIG (once SIGXFSZ no longer kills us).
  struct rlimit old_limit;
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 4096;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string chunk(3000, 'a');
  bool threw = false;
  std::string message;
  try {
    write_file_atomically(path, [&](AtomicFileWriter& f) {
      f.write(chunk.data(), chunk.size());
      f.write(chunk.data(), chunk.size());
    });
  } catch (const Error& e) {
    threw = true;
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  ::signal(SIGXFSZ, old_handler);
  CHECK(threw);
  CHECK_THAT(message, Catch::Contains("cannot write '" + path + "'"));
  CHECK(ember::test::read_file(path) == "old");
  CHECK(dir.entries() == std::vector<std::string>{"big.bin"});
}

TEST_CASE("unwritable targets give a clear error", "[serialize]") {
  TempDir dir;
  CHECK_THROWS_WITH(
      AtomicFileWriter(dir.file("missing/x.bin")),
      Catch::Contains("cannot create a temporary file in '" + dir.path() + "/missing'"));
  std::filesystem::create_directory(dir.file("sub"));
  CHECK_THROWS_WITH(write_file_atomically(dir.file("sub"), [](AtomicFileWriter& f) {}),
                    Catch::Contains("cannot write '" + dir.file("sub") + "'"));
  CHECK(dir.entries() == std::vector<std::string>{"sub"});
  CHECK_THROWS_AS(AtomicFileWriter(dir.path() + "/"), ValueError);
  AtomicFileWriter once(dir.file("once"));
  once.commit();
  CHECK_THROWS_WITH(once.write("x", 1), Catch::Contains("already committed"));
  CHECK_THROWS_WITH(once.commit(), Catch::Contains("already committed"));
}
