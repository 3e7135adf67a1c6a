// C++'s unsigned arithmetic on per-example integers (Note [Unsigned per-example integers]
// in rules/include/vmap/batched.hpp): uint32_t and uint16_t wrap around as in C++
// (`3u - c`, a product past 2^32, a conversion keeping the low bits); size_t values are
// held as their bits, so C++'s wrap past 2^63 (`i - 1` at i == 0, `3 - i` for i > 3) is
// kept, and comparisons, `/`, `%`, `/=`, `%=` and conversions to floating point of them
// read the bits as C++'s unsigned value (their differential fails where int64 reads -1).
#include <vmap/vmap.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iostream>
using namespace vmap;

void hashes(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    uint32_t c = static_cast<uint32_t>(x[i].item<int64_t>());
    uint32_t h = c * 2654435761u + 12345u;
    uint32_t back = 3u - c;
    uint16_t low = h;
    out[i][0] = static_cast<int64_t>(h % 1000u);
    out[i][1] = static_cast<int64_t>(back % 100000u);
    out[i][2] = static_cast<int64_t>(low);
    out[i][3] = back > 100u;
    out[i][4] = static_cast<int64_t>(back / 7u % 1000u);
  }
}
// CHECK-LABEL: void hashes(
// CHECK: vb::Value c = vb::scalar_cast<uint32_t>(vb::at(x, i).item<int64_t>());  // line 18
// CHECK: vb::Value h = vb::scalar_cast<unsigned int>(vb::scalar_cast<unsigned int>(c * 2654435761u) + 12345u);  // line 19
// CHECK: vb::Value back = vb::scalar_cast<unsigned int>(3u - c);  // line 20
// CHECK: vb::Value low = vb::scalar_cast<unsigned short>(h);  // line 21

void previous(const Tensor& x, Tensor& out) {
  const std::size_t n = static_cast<std::size_t>(x.size(0));
#pragma vmap
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t prev = i > 0 ? i - 1 : 0;
    std::size_t rest = 3 - i % 4;
    std::size_t count = x[i].item<int64_t>();
    out[i][0] = static_cast<int64_t>(prev);
    out[i][1] = static_cast<int64_t>(rest / 2);
    out[i][2] = static_cast<int64_t>(count * 3 / 2);
    out[i][3] = static_cast<double>(count + prev);
  }
}
// CHECK-LABEL: void previous(
// CHECK: vb::Value prev = vb::where(vb::unsigned_less(0, i), vb::scalar_cast<unsigned long>(i - 1), 0);  // line 39
// CHECK: vb::Value rest = vb::scalar_cast<unsigned long>(3 - vb::unsigned_remainder(i, 4));  // line 40
// CHECK: vb::Value count = vb::scalar_cast<unsigned long>(vb::at(x, i).item<int64_t>());  // line 41
// CHECK: vb::at(out, i)[1] = vb::scalar_cast<int64_t>(vb::unsigned_divide(rest, 2));  // line 43
// CHECK: vb::at(out, i)[3] = vb::from_unsigned<double>(vb::scalar_cast<unsigned long>(count + prev));  // line 45

// Values C++ wraps past 2^63, then compared, divided, converted and wrapped back.
void wrapped(const Tensor& x, Tensor& out, Tensor& real, std::size_t& top) {
  const std::size_t n = static_cast<std::size_t>(x.size(0));
  const std::size_t huge = SIZE_MAX - 2;
#pragma vmap
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t below = i - 1;
    std::size_t back = 3 - i;
    std::size_t count = x[i].item<int64_t>();
    std::size_t far = count - 1025;
    out[i][0] = below > n;
    out[i][1] = back < 10;
    out[i][2] = back >= below;
    out[i][3] = below <= huge;
    out[i][4] = static_cast<int64_t>(below / 3);
    out[i][5] = static_cast<int64_t>(back % 1000);
    out[i][6] = static_cast<int64_t>(below / (count + 1));
    out[i][7] = static_cast<int64_t>(far % (count + 7));
    out[i][8] = static_cast<int64_t>(back + 5);
    out[i][9] = x[below + 1].item<int64_t>();
    far /= 7;
    out[i][10] = static_cast<int64_t>(far);
    float single = below;
    real[i][0] = static_cast<double>(below);
    real[i][1] = static_cast<double>(far * 7 + count);
    real[i][2] = static_cast<double>(count - 1025);
    real[i][3] = single;
    top = std::max(top, back);
  }
}
// CHECK-LABEL: void wrapped(
// CHECK: vb::at(out, i)[0] = vb::unsigned_less(n, below);
// CHECK: vb::at(out, i)[1] = vb::unsigned_less(back, 10);
// CHECK: vb::at(out, i)[2] = vb::unsigned_less_equal(below, back);
// CHECK: vb::at(out, i)[3] = vb::unsigned_less_equal(below, huge);
// CHECK: vb::at(out, i)[4] = vb::scalar_cast<int64_t>(vb::unsigned_divide(below, 3));
// CHECK: vb::at(out, i)[5] = vb::scalar_cast<int64_t>(vb::unsigned_remainder(back, 1000));
// CHECK: far = vb::unsigned_divide(far, 7);
// CHECK: vb::Value single = vb::from_unsigned<float>(below);
// CHECK: vb::at(real, i)[0] = vb::from_unsigned<double>(below);
// CHECK: vb::accumulate(top, back

int main() {
  Tensor x = arange(6, kInt64) * 5;
  Tensor hashed = zeros({6, 5}, kInt64);
  hashes(x, hashed);
  Tensor prev = zeros({6, 4}, kInt64);
  previous(x, prev);
  std::cout << hashed << "\n" << prev << "\n";
  Tensor out = zeros({6, 11}, kInt64), real = zeros({6, 4}, kFloat64);
  std::size_t top = 0;
  wrapped(x, out, real, top);
  for (int64_t i = 0; i < out.size(0); ++i)  // exact: the tensor prints 4 digits
    for (int64_t j = 0; j < out.size(1); ++j) std::cout << out[i][j].item<int64_t>() << " ";
  std::cout << "\n" << top << "\n" << std::setprecision(17);
  for (int64_t i = 0; i < real.size(0); ++i)
    for (int64_t j = 0; j < real.size(1); ++j) std::cout << real[i][j].item<double>() << " ";
  std::cout << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
