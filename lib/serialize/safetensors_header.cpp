// The JSON header of a safetensors file (safetensors.h): dtype names, parsing with
// every check the format asks for, and formatting.
#include <algorithm>
#include <limits>
#include <optional>

#include "serialize/safetensors.h"
#include "serialize/strict_json.h"

namespace ember::serialize {

namespace {

constexpr const char* kMetadataKey = "__metadata__";

struct DTypeName {
  DType dtype;
  const char* name;
};
constexpr DTypeName kDTypeNames[] = {
    {kFloat64, "F64"}, {kFloat32, "F32"}, {kFloat16, "F16"}, {kBFloat16, "BF16"}, {kInt64, "I64"},
    {kInt32, "I32"},   {kInt16, "I16"},   {kInt8, "I8"},     {kUInt8, "U8"},      {kBool, "BOOL"},
};

// The format's JSON has three levels (root object, tensor entry, shape array).
Json parse_json(std::string_view text, const std::string& source) {
  return parse_strict_json(text, JsonLimits{2, kMaxHeaderBytes},
                           detail::str("cannot load ", source, " as safetensors"), "the header");
}

// A JSON number that is an integer in [0, limit].
bool to_uint(const Json& j, uint64_t limit, uint64_t& out) {
  if (j.is_number_unsigned())
    out = j.get<uint64_t>();
  else if (j.is_number_integer() && j.get<int64_t>() >= 0)
    out = static_cast<uint64_t>(j.get<int64_t>());
  else
    return false;
  return out <= limit;
}

const Json* field(const Json& entry, const char* key) {
  auto it = entry.find(key);
  return it == entry.end() ? nullptr : &*it;
}

DimVector parse_shape(const std::string& name, const Json* shape, const std::string& source) {
  if (!shape || !shape->is_array()) bad_file(source, "tensor '", name, "' has no \"shape\" array");
  if (shape->size() > kMaxDims)
    bad_file(source, "tensor '", name, "' has ", shape->size(), " dims (at most ", kMaxDims,
             " are supported)");
  DimVector dims;
  for (const Json& d : *shape) {
    uint64_t v;
    if (!to_uint(d, std::numeric_limits<int64_t>::max(), v))
      bad_file(source, "tensor '", name, "' has a shape entry ", d.dump(),
               " that is not a non-negative 64-bit integer");
    dims.push_back(static_cast<int64_t>(v));
  }
  return dims;
}

// The tensor's size in bytes. Also checks that the product of its sizes (zeros
// counted as ones) fits: strides of an empty [0, 2^40, 2^40] tensor must not overflow.
uint64_t checked_nbytes(const TensorEntry& e, const std::string& source) {
  uint64_t span = itemsize(e.dtype), numel = 1;
  for (int64_t d : e.shape) {
    uint64_t s = static_cast<uint64_t>(d);
    if (__builtin_mul_overflow(span, std::max<uint64_t>(s, 1), &span) ||
        span > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      bad_file(source, "tensor '", e.name, "' has shape ", shape_str(e.shape),
               ", too large to address");
    numel *= s;  // cannot overflow: bounded by span
  }
  return numel * itemsize(e.dtype);
}

TensorEntry parse_entry(const std::string& name, const Json& entry, const std::string& source) {
  if (!entry.is_object())
    bad_file(source, "tensor '", name, "' is described by a JSON ", entry.type_name(),
             ", not an object {\"dtype\", \"shape\", \"data_offsets\"}");
  for (const auto& item : entry.items())
    if (item.key() != "dtype" && item.key() != "shape" && item.key() != "data_offsets")
      bad_file(source, "tensor '", name, "' has an unknown field '", item.key(), "'");
  const Json* dtype = field(entry, "dtype");
  if (!dtype || !dtype->is_string())
    bad_file(source, "tensor '", name, "' has no \"dtype\" string");
  std::optional<DType> dt = dtype_from_safetensors_name(dtype->get<std::string>());
  if (!dt)
    bad_file(source, "tensor '", name, "' has dtype ", dtype->dump(),
             ", which ember does not support (it reads F64, F32, F16, BF16, I64, I32, I16, I8, "
             "U8 and BOOL)");
  TensorEntry e{name, *dt, parse_shape(name, field(entry, "shape"), source), 0, 0};
  const Json* offsets = field(entry, "data_offsets");
  constexpr uint64_t kMaxOffset = std::numeric_limits<uint64_t>::max();
  if (!offsets || !offsets->is_array() || offsets->size() != 2 ||
      !to_uint((*offsets)[0], kMaxOffset, e.begin) || !to_uint((*offsets)[1], kMaxOffset, e.end) ||
      e.begin > e.end)
    bad_file(source, "tensor '", name,
             "' needs \"data_offsets\": [begin, end] with 0 <= begin <= end, got ",
             offsets ? offsets->dump() : "nothing");
  uint64_t nbytes = checked_nbytes(e, source);
  if (e.end - e.begin != nbytes)
    bad_file(source, "tensor '", name, "' of dtype ", dtype->get<std::string>(), " and shape ",
             shape_str(e.shape), " needs ", nbytes, " bytes but its data_offsets [", e.begin, ", ",
             e.end, "] hold ", e.end - e.begin);
  return e;
}

Metadata parse_metadata(const Json& j, const std::string& source) {
  if (!j.is_object())
    bad_file(source, "\"__metadata__\" must be an object of strings, got a JSON ", j.type_name());
  Metadata metadata;
  for (const auto& item : j.items()) {
    if (!item.value().is_string())
      bad_file(source, "\"__metadata__\" entry '", item.key(), "' is a JSON ",
               item.value().type_name(), ", not a string");
    metadata.emplace(item.key(), item.value().get<std::string>());
  }
  return metadata;
}

// The tensors must tile [0, data_bytes): sorted by offset, each starts where the
// previous ended and the last ends at the end of the data section.
void check_tiling(const std::vector<TensorEntry>& tensors, uint64_t data_bytes,
                  const std::string& source) {
  std::vector<const TensorEntry*> sorted;
  for (const TensorEntry& e : tensors) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const TensorEntry* a, const TensorEntry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t covered = 0;
  const TensorEntry* previous = nullptr;
  for (const TensorEntry* e : sorted) {
    if (e->end > data_bytes)
      bad_file(source, "tensor '", e->name, "' has data_offsets [", e->begin, ", ", e->end,
               "] past the end of the data section (", data_bytes, " bytes)");
    if (e->begin < covered)
      bad_file(source, "the data of tensors '", previous->name, "' and '", e->name, "' overlap");
    if (e->begin > covered)
      bad_file(source, "bytes [", covered, ", ", e->begin,
               ") of the data section belong to no tensor");
    covered = e->end;
    previous = e;
  }
  if (covered != data_bytes)
    bad_file(source, "the data section has ", data_bytes, " bytes but the tensors cover ", covered);
}

}  // namespace

const char* safetensors_dtype_name(DType dtype) {
  for (const DTypeName& d : kDTypeNames)
    if (d.dtype == dtype) return d.name;
  throw Error(detail::str("save: dtype ", dtype_name(dtype), " has no safetensors name"));
}

std::optional<DType> dtype_from_safetensors_name(const std::string& name) {
  for (const DTypeName& d : kDTypeNames)
    if (name == d.name) return d.dtype;
  return std::nullopt;
}

Header parse_header(std::string_view text, uint64_t data_bytes, const std::string& source) {
  // The format has the header start with '{' (whitespace padding may only trail).
  if (text.empty() || text.front() != '{') bad_file(source, "the header does not start with '{'");
  Json root = parse_json(text, source);
  Header header;
  for (const auto& item : root.items()) {
    if (item.key() == kMetadataKey) {
      header.metadata = parse_metadata(item.value(), source);
      continue;
    }
    header.tensors.push_back(parse_entry(item.key(), item.value(), source));
  }
  check_tiling(header.tensors, data_bytes, source);
  return header;
}

std::string format_header(const std::vector<TensorEntry>& tensors, const Metadata& metadata) {
  Json root = Json::object();
  if (!metadata.empty()) root[kMetadataKey] = metadata;
  for (const TensorEntry& e : tensors) {
    EMBER_CHECK_VALUE(e.name != kMetadataKey, "save: a tensor cannot be named \"", kMetadataKey,
                      "\" (the key is reserved for the file's metadata)");
    EMBER_CHECK_VALUE(!root.contains(e.name), "save: two tensors are named '", e.name, "'");
    root[e.name] = {{"dtype", safetensors_dtype_name(e.dtype)},
                    {"shape", std::vector<int64_t>(e.shape.begin(), e.shape.end())},
                    {"data_offsets", {e.begin, e.end}}};
  }
  std::string text;
  try {
    text = root.dump();
  } catch (const Json::exception& e) {  // a name or metadata string that is not UTF-8
    throw ValueError(detail::str("save: tensor names and metadata must be valid UTF-8 (",
                                 printable(e.what()), ")"));
  }
  // Spaces after the JSON keep the data section 8-byte aligned, as the reference
  // writer does, so that every tensor is aligned to its element size.
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

}  // namespace ember::serialize
