#include "ember/device.h"

#include <cctype>

#include "ember/error.h"

namespace ember {

Device::Device(const std::string& spec) {
  std::string kind = spec, idx;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    kind = spec.substr(0, colon);
    idx = spec.substr(colon + 1);
  }
  if (kind == "cpu") type = DeviceType::CPU;
  else if (kind == "cuda") type = DeviceType::CUDA;
  else
    throw Error("Expected one of cpu, cuda device type at start of device string: " + spec);
  if (!idx.empty()) {
    bool digits = idx.size() <= 3;
    for (char c : idx) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    EMBER_CHECK(digits, "Invalid device string: '", spec, "'");
    index = static_cast<int8_t>(std::stoi(idx));
    EMBER_CHECK(type != DeviceType::CPU || index == 0, "Invalid device string: '", spec,
                "' (the cpu device has index 0 only)");
  }
  if (type == DeviceType::CPU) index = -1;
}

std::string Device::str() const {
  std::string s = type == DeviceType::CPU ? "cpu" : "cuda";
  if (type != DeviceType::CPU && index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace ember
