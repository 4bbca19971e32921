// Tensor factories (torch.zeros, torch.arange, torch.randn, ...).
#pragma once
#include <vector>

#include "ember/options.h"
#include "ember/tensor.h"

namespace ember {

// Uninitialized memory from the caching allocator, contiguous.
Tensor empty(const IntList& sizes, TensorOptions options = {});
Tensor empty(const DimVector& sizes, TensorOptions options = {});
Tensor empty(std::initializer_list<int64_t> sizes, TensorOptions options = {});  // empty({2, 3})
Tensor empty_strided(const IntList& sizes, const IntList& strides, TensorOptions options = {});
Tensor zeros(const IntList& sizes, TensorOptions options = {});
Tensor ones(const IntList& sizes, TensorOptions options = {});
// dtype defaults to the value's kind: bool, int64 or the default float type.
Tensor full(const IntList& sizes, const Scalar& value, TensorOptions options = {});

// *_like: same shape, and dtype/device of `like` unless options say otherwise.
Tensor empty_like(const Tensor& like, TensorOptions options = {});
Tensor zeros_like(const Tensor& like, TensorOptions options = {});
Tensor ones_like(const Tensor& like, TensorOptions options = {});
Tensor full_like(const Tensor& like, const Scalar& value, TensorOptions options = {});
Tensor rand_like(const Tensor& like, TensorOptions options = {});
Tensor randn_like(const Tensor& like, TensorOptions options = {});

// dtype defaults to int64 when start, end and step are all integers, else the default float type.
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions options = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions options = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions options = {});

// Random factories; the forms with a generator draw from it (nullptr: the default
// generator), the others from the default generator (see ember/generator.h).
Tensor rand(const IntList& sizes, TensorOptions options = {});
Tensor rand(const IntList& sizes, Generator* generator, TensorOptions options = {});
Tensor randn(const IntList& sizes, TensorOptions options = {});
Tensor randn(const IntList& sizes, Generator* generator, TensorOptions options = {});
// Integers in [low, high); dtype int64 unless given.
Tensor randint(int64_t low, int64_t high, const IntList& sizes, TensorOptions options = {});
Tensor randint(int64_t low, int64_t high, const IntList& sizes, Generator* generator,
               TensorOptions options = {});
Tensor randint(int64_t high, const IntList& sizes, TensorOptions options = {});
Tensor randint(int64_t high, const IntList& sizes, Generator* generator, TensorOptions options = {});
Tensor randperm(int64_t n, TensorOptions options = {});
Tensor randperm(int64_t n, Generator* generator, TensorOptions options = {});

// A 0-dim tensor holding a number (dtype from the number's kind unless given).
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});
// A Python number as an op operand: a 0-dim tensor (bool, int64 or float64) marked
// as a wrapped number, so it takes part in type promotion as a number does
// (Note [Type promotion]): ember::add(x, wrapped_scalar(2)) keeps x's dtype.
Tensor wrapped_scalar(const Scalar& value);
// A 1-d tensor from values: ember::tensor({1.0f, 2.0f}).
template <typename T>
Tensor tensor(std::initializer_list<T> values, TensorOptions options = {});
// A tensor of the given shape from flat row-major values (copied).
template <typename T>
Tensor from_vector(const std::vector<T>& values, const IntList& sizes, TensorOptions options = {});

}  // namespace ember
