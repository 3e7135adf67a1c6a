// What a peer program uses besides SPEC section 4: deterministic inputs and a printed record
// of every result. A peer program is written against SPEC section 4 only and built twice,
// against vmap::runtime and against LibTorch (samples/torch_shim); compare.cpp runs both
// builds and compares their records (Note [Peer tests] in CMakeLists.txt).
//
// Inputs come from the generator here, never from the library's random factories: ours is
// not LibTorch's, and both builds must see the same numbers.
#pragma once

#include <vmap/vmap.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace peer {

using vmap::Tensor;

// splitmix64: a fixed sequence of 64-bit numbers from a seed.
class Generator {
 public:
  explicit Generator(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // An integer in [low, high).
  int64_t integer(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(next() % static_cast<uint64_t>(high - low));
  }
  // A multiple of 1/256 in [low, high): exact in float32, so the inputs are the same in both
  // builds whatever their dtype.
  double real(double low, double high) {
    return low + static_cast<double>(next() >> 40) / double(1 << 24) * (high - low);
  }

 private:
  uint64_t state_;
};

// A tensor of `sizes` filled from the generator: floats in [-2, 2) on a 1/256 grid, integers
// in [-5, 5], bools either way. Indices come from index().
inline Tensor random(Generator& generator, std::vector<int64_t> sizes,
                     vmap::Dtype dtype = vmap::kFloat32) {
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;
  std::vector<double> values(static_cast<size_t>(count));
  const bool real = dtype == vmap::kFloat32 || dtype == vmap::kFloat64;
  for (double& value : values) {
    if (real)
      value = static_cast<double>(static_cast<int64_t>(generator.real(-2, 2) * 256)) / 256;
    else if (dtype == vmap::kBool)
      value = static_cast<double>(generator.next() & 1);
    else
      value = static_cast<double>(generator.integer(-5, 6));
  }
  return vmap::from_blob(values.data(), sizes, vmap::kFloat64).clone().to(dtype);
}

// int64 indices in [0, bound).
inline Tensor index(Generator& generator, std::vector<int64_t> sizes, int64_t bound) {
  int64_t count = 1;
  for (int64_t size : sizes) count *= size;
  std::vector<int64_t> values(static_cast<size_t>(count));
  for (int64_t& value : values) value = generator.integer(0, bound);
  return vmap::from_blob(values.data(), sizes, vmap::kInt64).clone();
}

// "prefix<number>": record names of a loop over dims or diagonals. (Appending, as here, also
// keeps GCC 12 from a false -Wstringop-overflow on `"/" + std::to_string(n)`.)
inline std::string named(std::string prefix, int64_t number) {
  prefix += std::to_string(number);
  return prefix;
}

inline const char* dtype_name(const Tensor& t) {
  if (t.dtype() == vmap::kFloat32) return "float32";
  if (t.dtype() == vmap::kFloat64) return "float64";
  if (t.dtype() == vmap::kInt32) return "int32";
  if (t.dtype() == vmap::kInt64) return "int64";
  if (t.dtype() == vmap::kBool) return "bool";
  return "other";
}

// One record: "value NAME DTYPE [SIZES] : V V V ..." (values as doubles, 17 digits), or
// "error NAME" when the expression threw. compare.cpp parses these.
inline void show(const std::string& name, const std::function<Tensor()>& compute) {
  Tensor result;
  try {
    result = compute();
  } catch (const std::exception&) {
    std::cout << "error " << name << '\n';
    return;
  }
  std::ostringstream line;
  line.precision(17);
  line << "value " << name << ' ' << dtype_name(result) << " [";
  for (int64_t d = 0; d < result.dim(); ++d) line << (d ? "," : "") << result.size(d);
  line << "] :";
  const Tensor values = result.to(vmap::kFloat64).contiguous();
  const double* data = values.data_ptr<double>();
  for (int64_t k = 0; k < values.numel(); ++k) line << ' ' << data[k];
  std::cout << line.str() << '\n';
}

// A scalar result (item<T>(), dim(), is_contiguous(), ...): "scalar NAME : VALUE",
// compared exactly as text.
template <class Compute>
void show_scalar(const std::string& name, Compute compute) {
  try {
    const auto value = compute();
    std::ostringstream line;
    line.precision(17);
    line << std::boolalpha << "scalar " << name << " : " << value;
    std::cout << line.str() << '\n';
  } catch (const std::exception&) {
    std::cout << "error " << name << '\n';
  }
}

// What `std::ostream << Tensor` prints, compared exactly: "text NAME" then the lines, then
// "end NAME".
inline void show_printed(const std::string& name, const Tensor& t) {
  std::ostringstream printed;
  printed << t;
  std::cout << "text " << name << '\n' << printed.str() << "\nend " << name << '\n';
}

}  // namespace peer
