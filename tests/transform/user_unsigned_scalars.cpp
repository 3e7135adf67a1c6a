// C++'s unsigned arithmetic on per-example integers (Note [Unsigned per-example integers]
// in rules/include/vmap/batched.hpp): uint32_t and uint16_t wrap around as in C++
// (`3u - c`, a product past 2^32, a conversion keeping the low bits); size_t values stay
// exact, a subtraction only where C++ computes it (`i > 0 ? i - 1 : 0` runs `i - 1` under
// the mask), and a signed value converted to size_t is the same number.
#include <vmap/vmap.hpp>
#include <cstddef>
#include <cstdint>
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
// CHECK: vb::Value c = vb::scalar_cast<uint32_t>(vb::at(x, i).item<int64_t>());  // line 15
// CHECK: vb::Value h = vb::scalar_cast<unsigned int>(vb::scalar_cast<unsigned int>(c * 2654435761u) + 12345u);  // line 16
// CHECK: vb::Value back = vb::scalar_cast<unsigned int>(3u - c);  // line 17
// CHECK: vb::Value low = vb::scalar_cast<unsigned short>(h);  // line 18

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
// CHECK: vb::Value prev = vb::where(i > 0, [&] { return vb::scalar_cast<unsigned long>(i - 1); }, [&] { return 0; });  // line 36
// CHECK: vb::Value rest = vb::scalar_cast<unsigned long>(3 - i % 4);  // line 37
// CHECK: vb::Value count = vb::scalar_cast<unsigned long>(vb::at(x, i).item<int64_t>());  // line 38
// CHECK: vb::at(out, i)[3] = vb::scalar_cast<double>(vb::scalar_cast<unsigned long>(count + prev));  // line 42

int main() {
  Tensor x = arange(6, kInt64) * 5;
  Tensor hashed = zeros({6, 5}, kInt64);
  hashes(x, hashed);
  Tensor prev = zeros({6, 4}, kInt64);
  previous(x, prev);
  std::cout << hashed << "\n" << prev << "\n";
}
