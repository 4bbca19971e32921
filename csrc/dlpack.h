// The DLPack ABI (https://github.com/dmlc/dlpack), written out from its public
// specification: the structs a producer hands to a consumer inside a PyCapsule.
// Layouts must match the C definitions byte for byte; only what ember uses is here.
#pragma once
#include <cstdint>

namespace ember::dlpack {

constexpr uint32_t kMajorVersion = 1;
constexpr uint32_t kMinorVersion = 0;

// DLDeviceType (a C enum, so an int on the ABI).
enum DeviceType : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,  // pinned host memory: readable from the CPU
  kDLROCM = 10,
  kDLCUDAManaged = 13,
};

// DLDataTypeCode.
enum TypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLOpaqueHandle = 3,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6,
};

struct DLDevice {
  int32_t device_type;  // a DeviceType
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;   // a TypeCode
  uint8_t bits;
  uint16_t lanes;  // 1 for ordinary (non-vector) elements
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;    // ndim entries
  int64_t* strides;  // ndim entries in elements, or null for row-major contiguous
  uint64_t byte_offset;
};

// Unversioned (DLPack < 1.0): the capsule is named "dltensor".
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

constexpr uint64_t kFlagReadOnly = 1ULL << 0;
constexpr uint64_t kFlagIsCopied = 1ULL << 1;

// Versioned (DLPack >= 1.0): the capsule is named "dltensor_versioned".
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

// Capsule names: a consumer renames the capsule to the "used_" name when it
// takes ownership, so the capsule's destructor knows not to free it.
constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";
constexpr const char* kVersionedCapsuleName = "dltensor_versioned";
constexpr const char* kUsedVersionedCapsuleName = "used_dltensor_versioned";

}  // namespace ember::dlpack
