// Device: where a tensor's memory lives ("cpu", "cuda:0").
#pragma once
#include <cstdint>
#include <string>

namespace ember {

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };
constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: the current device of that type

  Device() = default;
  Device(DeviceType t, int idx = -1) : type(t), index(static_cast<int8_t>(idx)) {}
  // Parses "cpu", "cuda", "cuda:1"; throws ValueError otherwise.
  Device(const std::string& spec);
  Device(const char* spec) : Device(std::string(spec)) {}

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  std::string str() const;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

const Device kCPU{DeviceType::CPU};

}  // namespace ember
