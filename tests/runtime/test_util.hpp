// Test helpers that read tensors without going through the code under test: elements are
// fetched by walking sizes/strides from the raw data pointer.
#pragma once

#include <vmap/vmap.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vmap_test {

template <class T>
std::vector<T> elements(const vmap::Tensor& tensor) {
  std::vector<T> result;
  const int64_t rank = tensor.dim();
  const auto sizes = tensor.sizes().vec();
  const auto strides = tensor.strides().vec();
  const T* base = static_cast<const T*>(tensor.raw_data());
  if (tensor.numel() == 0) return result;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t k = 0; k < tensor.numel(); ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
    result.push_back(base[offset]);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return result;
}

inline std::vector<int64_t> shape(const vmap::Tensor& tensor) { return tensor.sizes().vec(); }

// The message of the vmap::Error thrown by f ("" when nothing is thrown).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const vmap::Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace vmap_test
