// ember::save / ember::load and the safetensors reader's checks on malformed files.
#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "ember/ember.h"
#include "serialize/safetensors.h"
#include "serialize_test_utils.h"

using namespace ember;
using ember::test::same_bytes;
using ember::test::TempDir;

namespace {

// A safetensors file from its header text and data section.
std::string st_file(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(n >> (8 * i));
  return out + header + data;
}

uint64_t header_length(const std::string& file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[i]);
  return n;
}

// Loads bytes as a file would be loaded; the error message, or "" if it loaded.
std::string load_error(const std::string& bytes) {
  try {
    serialize::read_safetensors(serialize::MemorySource(bytes, "the test file"));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kOneF32 = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

}  // namespace

TEST_CASE("save and load round-trip every dtype, 0-dim, empty and non-contiguous tensors",
          "[serialize]") {
  TempDir dir;
  std::map<std::string, Tensor> tensors = {
      {"f64", randn({3, 2}, kFloat64)},
      {"f32", randn({4}, kFloat32)},
      {"f16", randn({2, 2}).to(kFloat16)},
      {"bf16", randn({5}).to(kBFloat16)},
      {"i64", arange(-3, 3)},
      {"i32", arange(6, kInt32).reshape({2, 3})},
      {"i16", full({2}, -7, kInt16)},
      {"i8", full({3}, -128, kInt8)},
      {"u8", full({2}, 255, kUInt8)},
      {"bool", from_vector<int64_t>({1, 0, 1}, {3}).to(kBool)},
      {"scalar", scalar_tensor(2.5, kFloat64)},
      {"empty", empty({0, 4})},
      {"transposed", arange(12, kFloat32).reshape({3, 4}).t()},
      {"strided", arange(10, kInt64).slice(0, 1, 9, 3)},
  };
  std::string path = dir.file("all.safetensors");
  save(tensors, path, {{"author", "test"}});
  std::map<std::string, Tensor> loaded = load(path);
  REQUIRE(loaded.size() == tensors.size());
  for (const auto& [name, t] : tensors) {
    INFO(name);
    REQUIRE(loaded.count(name));
    CHECK(same_bytes(loaded[name], t));
    CHECK(loaded[name].is_contiguous());
    CHECK(!loaded[name].requires_grad());
  }
  CHECK(load_metadata(path) == std::map<std::string, std::string>{{"author", "test"}});
  CHECK(dir.entries() == std::vector<std::string>{"all.safetensors"});
}

TEST_CASE("saved files follow the safetensors layout", "[serialize]") {
  TempDir dir;
  std::string path = dir.file("layout.safetensors");
  save({{"a_byte", full({3}, 1, kUInt8)}, {"b_double", full({2}, 1.5, kFloat64)}}, path);
  std::string bytes = ember::test::read_file(path);
  uint64_t n = header_length(bytes);
  CHECK((8 + n) % 8 == 0);  // data section aligned, the header padded with spaces
  std::string header = bytes.substr(8, n);
  CHECK(header.front() == '{');
  CHECK(header.find(R"("b_double":{"dtype":"F64","shape":[2],"data_offsets":[0,16]})") !=
        std::string::npos);
  CHECK(header.find(R"("a_byte":{"dtype":"U8","shape":[3],"data_offsets":[16,19]})") !=
        std::string::npos);
  CHECK(bytes.size() == 8 + n + 19);
  double first;
  std::memcpy(&first, bytes.data() + 8 + n, 8);
  CHECK(first == 1.5);
}

TEST_CASE("a single tensor round-trips; a file of several is not one tensor", "[serialize]") {
  TempDir dir;
  Tensor x = arange(6, kFloat32).reshape({2, 3});
  save(x, dir.file("x"));
  Tensor y;
  load(y, dir.file("x"));
  CHECK(same_bytes(x, y));
  CHECK(load(dir.file("x")).count("tensor"));
  // test_serialization.py pins the same metadata for Python's ember.save(tensor).
  CHECK(load_metadata(dir.file("x"))["ember"] ==
        R"({"format_version":1,"structure":{"tensor":"tensor"}})");
  save({{"a", x}, {"b", x}}, dir.file("two"));
  CHECK_THROWS_WITH(load(y, dir.file("two")), Catch::Contains("holds 2 tensors, not one"));
}

TEST_CASE("loaded tensors own their memory and do not alias the saved ones", "[serialize]") {
  TempDir dir;
  Tensor x = zeros({3});
  save({{"x", x}}, dir.file("x"));
  Tensor y = load(dir.file("x"))["x"];
  y.fill_(5);
  CHECK(x.sum().item<float>() == 0.0f);
  CHECK(y.sum().item<float>() == 15.0f);
}

TEST_CASE("save refuses what the format cannot hold", "[serialize]") {
  TempDir dir;
  std::string path = dir.file("bad");
  CHECK_THROWS_AS(save({{"x", Tensor()}}, path), ValueError);
  CHECK_THROWS_AS(save({{"__metadata__", zeros({1})}}, path), ValueError);
  CHECK_THROWS_AS(save({{"x", zeros({1})}}, path, {{"ember", "{}"}}), ValueError);
  CHECK_THROWS_AS(save({{std::string("bad\xff"), zeros({1})}}, path), ValueError);
  CHECK_THROWS_AS(serialize::write_safetensors({{"a", zeros({1})}, {"a", zeros({1})}}, {},
                                               [](const void*, size_t) {}),
                  ValueError);
  CHECK(dir.entries().empty());  // no file and no temporary left behind
}

TEST_CASE("missing files, directories and files too short give clear errors", "[serialize]") {
  TempDir dir;
  CHECK_THROWS_WITH(load(dir.file("nope")), Catch::Contains("No such file or directory"));
  CHECK_THROWS_WITH(load(dir.path()), Catch::Contains("Is a directory"));
  ember::test::write_file(dir.file("short"), "abc");
  CHECK_THROWS_WITH(load(dir.file("short")),
                    Catch::Contains("as safetensors: it has 3 bytes, fewer than the 8"));
}

TEST_CASE("malformed headers each give their own clear error", "[serialize]") {
  std::string eight(8, '\0');
  auto error_of = [&](const std::string& header, const std::string& data) {
    return load_error(st_file(header, data));
  };
  // Lengths.
  CHECK_THAT(load_error(st_file(kOneF32, eight).substr(0, 20)),
             Catch::Contains("runs past the end of the file"));
  std::string huge_length(8, '\xff');
  CHECK_THAT(load_error(huge_length + "{}"), Catch::Contains("is over the limit"));
  std::string past(8, '\0');
  past[0] = 100;
  CHECK_THAT(load_error(past + "{}"), Catch::Contains("header length 100 runs past the end"));
  // JSON.
  CHECK_THAT(error_of("", ""), Catch::Contains("does not start with '{'"));
  CHECK_THAT(error_of(" {}", ""), Catch::Contains("does not start with '{'"));
  CHECK_THAT(error_of("{\"x\": ", ""), Catch::Contains("not valid JSON"));
  CHECK_THAT(error_of("{} trailing", ""), Catch::Contains("not valid JSON"));
  CHECK_THAT(error_of("{\"\xff\":1}", ""), Catch::Contains("not valid JSON"));
  CHECK_THAT(error_of("{\"\xff\":1}", ""), Catch::Contains("last read: '\"\\xff'"));  // text
  CHECK_THAT(error_of(R"({"a\ud800":1})", ""), Catch::Contains("not valid JSON"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                      R"("x":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                      eight + eight),
             Catch::Contains("has the key 'x' twice"));
  CHECK_THAT(
      error_of(R"({"x":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", eight),
      Catch::Contains("has the key 'dtype' twice"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[[[2]]],"data_offsets":[0,8]}})", eight),
             Catch::Contains("nests objects or arrays too deeply"));
  CHECK_THAT(error_of(std::string(1000, '[').insert(0, "{\"x\":"), ""),
             Catch::Contains("too deeply"));
  // Entries.
  CHECK_THAT(error_of(R"({"x":3})", ""),
             Catch::Contains("tensor 'x' is described by a JSON number"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}})", eight),
             Catch::Contains("unknown field 'extra'"));
  CHECK_THAT(error_of(R"({"x":{"shape":[2],"data_offsets":[0,8]}})", eight),
             Catch::Contains("has no \"dtype\" string"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"U32","shape":[2],"data_offsets":[0,8]}})", eight),
             Catch::Contains("has dtype \"U32\", which ember does not support"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"f32","shape":[2],"data_offsets":[0,8]}})", eight),
             Catch::Contains("does not support"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", eight),
             Catch::Contains("has no \"shape\" array"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", eight),
             Catch::Contains("shape entry -2 that is not a non-negative 64-bit integer"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", eight),
             Catch::Contains("not a non-negative 64-bit integer"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,8]}})",
                      eight),
             Catch::Contains("not a non-negative 64-bit integer"));
  CHECK_THAT(
      error_of(R"({"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", ""),
      Catch::Contains("too large to address"));
  CHECK_THAT(
      error_of(R"({"x":{"dtype":"F32","shape":[0,4294967296,4294967296],"data_offsets":[0,0]}})",
               ""),
      Catch::Contains("too large to address"));
  std::string many_dims = "{\"x\":{\"dtype\":\"F32\",\"shape\":[1";
  for (int i = 0; i < 64; ++i) many_dims += ",1";
  CHECK_THAT(error_of(many_dims + "],\"data_offsets\":[0,4]}}", "abcd"),
             Catch::Contains("has 65 dims"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", eight),
             Catch::Contains("needs \"data_offsets\": [begin, end]"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight),
             Catch::Contains("0 <= begin <= end, got [8,0]"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", eight),
             Catch::Contains("needs 12 bytes but its data_offsets [0, 8] hold 8"));
  // Offsets against the data section.
  CHECK_THAT(error_of(kOneF32, "1234"),
             Catch::Contains("past the end of the data section (4 bytes)"));
  CHECK_THAT(
      error_of(
          R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[18446744073709551608,18446744073709551615]}})",
          eight),
      Catch::Contains("needs 8 bytes"));
  CHECK_THAT(error_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                      R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                      eight + "1234"),
             Catch::Contains("the data of tensors 'a' and 'b' overlap"));
  CHECK_THAT(error_of(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", eight + "1234"),
             Catch::Contains("bytes [0, 4) of the data section belong to no tensor"));
  CHECK_THAT(error_of(kOneF32, eight + "1"),
             Catch::Contains("has 9 bytes but the tensors cover 8"));
  CHECK_THAT(error_of("{}", "x"), Catch::Contains("has 1 bytes but the tensors cover 0"));
  // Metadata.
  CHECK_THAT(error_of(R"({"__metadata__":[]})", ""),
             Catch::Contains("must be an object of strings"));
  CHECK_THAT(error_of(R"({"__metadata__":{"k":1}})", ""),
             Catch::Contains("entry 'k' is a JSON number, not a string"));
  // Data.
  CHECK_THAT(error_of(R"({"b":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", "\x01\x02"),
             Catch::Contains("BOOL tensor 'b' holds the byte 2"));
  // Every error names the file.
  CHECK_THAT(error_of("{", ""), Catch::StartsWith("cannot load the test file as safetensors: "));
}

TEST_CASE("headers the format allows load", "[serialize]") {
  // Trailing spaces, empty tensors sharing an offset, a header with no tensors.
  auto contents = serialize::read_safetensors(
      serialize::MemorySource(st_file(R"({"e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},)"
                                      R"("x":{"dtype":"I16","shape":[],"data_offsets":[0,2]},)"
                                      R"("f":{"dtype":"BOOL","shape":[0],"data_offsets":[2,2]},)"
                                      R"("__metadata__":{"k":"v"}}   )",
                                      std::string("\x05\x00", 2)),
                              "mem"));
  REQUIRE(contents.tensors.size() == 3);
  CHECK(contents.tensors[0].first == "e");  // the header's order
  CHECK(contents.tensors[0].second.sizes() == DimVector{0, 3});
  CHECK(contents.tensors[1].second.dim() == 0);
  CHECK(contents.tensors[1].second.item<int64_t>() == 5);
  CHECK(contents.metadata == serialize::Metadata{{"k", "v"}});
  CHECK(serialize::read_safetensors(serialize::MemorySource(st_file("{}"), "m")).tensors.empty());
}

TEST_CASE("damaged files never crash the reader", "[serialize]") {
  TempDir dir;
  save({{"w", randn({4, 3})}, {"b", arange(5)}, {"m", ones({2}, kBool)}}, dir.file("ok"));
  std::string good = ember::test::read_file(dir.file("ok"));
  REQUIRE(load_error(good).empty());
  for (size_t cut = 0; cut < good.size(); ++cut)  // every truncation
    CHECK_FALSE(load_error(good.substr(0, cut)).empty());
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {  // random byte changes: load or a clear error
    std::string bad = good;
    for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    load_error(bad);
  }
}
