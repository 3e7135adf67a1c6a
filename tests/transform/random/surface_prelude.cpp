// The text every --surface program starts with (surface.cpp writes its cases after it): the
// includes, and the helpers its runners call to build inputs in several layouts and print
// what each case wrote; and the random stream each case draws from.
#include "surface.hpp"

namespace vmap_generator {

const char* const kSurfacePrelude = R"(#include <vmap/vmap.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

using namespace vmap;

// Prints a tensor's sizes and values, exactly for integers and bools.
static void dump(const char* name, const Tensor& t) {
  std::printf("%s [", name);
  for (int64_t e = 0; e < t.dim(); ++e) std::printf(" %lld", static_cast<long long>(t.size(e)));
  std::printf(" ]\n");
  if (t.dtype() == kFloat32 || t.dtype() == kFloat64) {
    const Tensor v = t.to(kDouble).contiguous();
    for (int64_t e = 0; e < v.numel(); ++e) std::printf("%.9g\n", v.data_ptr<double>()[e]);
  } else {
    const Tensor v = t.to(kInt64).contiguous();
    for (int64_t e = 0; e < v.numel(); ++e)
      std::printf("%lld\n", static_cast<long long>(v.data_ptr<int64_t>()[e]));
  }
}

// [b, 5] floats in (-2, 2): layout 0 contiguous, 1 transposed, 2 a slice of wider rows,
// 3 one row expanded (stride 0).
static Tensor floats(int64_t b, double phase, int layout) {
  if (layout == 1) return ((arange(b * 5).reshape({5, b}).to(kFloat) * phase).sin() * 2.0).t();
  if (layout == 2)
    return ((arange(b * 7).reshape({b, 7}).to(kFloat) * phase).sin() * 2.0).narrow(1, 1, 5);
  if (layout == 3) return ((arange(5).reshape({1, 5}).to(kFloat) * phase).sin() * 2.0).expand({b, 5});
  return (arange(b * 5).reshape({b, 5}).to(kFloat) * phase).sin() * 2.0;
}

// [b, 4, 5] floats, in the same layouts.
static Tensor floats3(int64_t b, double phase, int layout) {
  if (layout == 1)
    return (arange(b * 20).reshape({4, 5, b}).to(kFloat) * phase).cos().permute({2, 0, 1});
  if (layout == 2) return (arange(b * 28).reshape({b, 4, 7}).to(kFloat) * phase).cos().narrow(2, 1, 5);
  if (layout == 3) return (arange(20).reshape({1, 4, 5}).to(kFloat) * phase).cos().expand({b, 4, 5});
  return (arange(b * 20).reshape({b, 4, 5}).to(kFloat) * phase).cos();
}

// [b, 5] integers in [-offset, bound - offset), int64 or int32, in the same layouts.
static Tensor integers(int64_t b, int64_t bound, int64_t offset, bool int32, int layout) {
  const int64_t rows = layout == 1 ? 5 : layout == 3 ? 1 : b;
  const int64_t columns = layout == 1 ? b : layout == 2 ? 7 : 5;
  std::vector<int64_t> values;
  for (int64_t e = 0; e < rows * columns; ++e) values.push_back((e * 7 + 3) % bound - offset);
  Tensor t = values.empty() ? zeros({rows, columns}, kInt64)
                            : from_blob(values.data(), {rows, columns}, kInt64).clone();
  if (int32) t = t.to(kInt);
  if (layout == 1) return t.t();
  if (layout == 2) return t.narrow(1, 1, 5);
  if (layout == 3) return t.expand({b, 5});
  return t;
}

// A loop-invariant [rows, 5] tensor.
static Tensor invariant(int64_t rows, double phase) {
  return (arange(rows * 5).reshape({rows, 5}).to(kFloat) * phase).sin();
}

)";

std::mt19937 engine(uint32_t seed, int id) {
  std::seed_seq sequence{seed, static_cast<uint32_t>(id), 31u};
  return std::mt19937(sequence);
}

}  // namespace vmap_generator
