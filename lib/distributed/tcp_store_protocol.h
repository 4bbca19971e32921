// The TCPStore's wire format. A request is [u8 command][u32 count] followed by
// count arguments, each [u32 length][bytes]; a reply is [u8 status][u32 count] and
// its arguments the same way. Integers travel as decimal text. The server answers
// every request in order; a WAIT is answered once all its keys exist.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ember::distributed::detail {

enum class TCPStoreCommand : uint8_t {
  SET = 1, GET, ADD, COMPARE_SET, DELETE_KEY, CHECK, NUM_KEYS, WAIT, APPEND,
};

enum class TCPStoreStatus : uint8_t {
  OK = 0,
  NOT_FOUND = 1,    // GET of a missing key
  VALUE_ERROR = 2,  // ADD to a value that is not an integer (the argument says why)
  BAD_REQUEST = 3,
};

using Message = std::vector<std::string>;

inline void encode_u32(std::string& out, uint32_t v) {
  out.append(reinterpret_cast<const char*>(&v), 4);
}

inline std::string encode_message(uint8_t head, const Message& args) {
  std::string out(1, static_cast<char>(head));
  encode_u32(out, static_cast<uint32_t>(args.size()));
  for (const auto& arg : args) {
    encode_u32(out, static_cast<uint32_t>(arg.size()));
    out += arg;
  }
  return out;
}

// Parses one message from the front of buffer; false when it is not all there yet.
// *consumed: its length in bytes.
inline bool decode_message(const std::string& buffer, uint8_t* head, Message* args,
                           size_t* consumed) {
  size_t pos = 0;
  auto read_u32 = [&](uint32_t& v) {
    if (pos + 4 > buffer.size()) return false;
    std::memcpy(&v, buffer.data() + pos, 4);
    pos += 4;
    return true;
  };
  if (buffer.empty()) return false;
  *head = static_cast<uint8_t>(buffer[0]);
  pos = 1;
  uint32_t count = 0;
  if (!read_u32(count)) return false;
  args->clear();
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t len = 0;
    if (!read_u32(len) || pos + len > buffer.size()) return false;
    args->emplace_back(buffer.substr(pos, len));
    pos += len;
  }
  *consumed = pos;
  return true;
}

}  // namespace ember::distributed::detail
