// A user batching rule whose batched function is wrong (it adds 1 that the per-example
// function does not): --check runs the loop as written too and names the difference.
// Run by transform.check.user_rule_differs (tests/transform/CMakeLists.txt), which expects
// the error; not a golden, whose differential test would fail.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

Tensor shifted(const Tensor& x) { return x.sum() * 2; }
Tensor shifted_batched(const Tensor& xs) { return xs.sum(1) * 2 + 1; }
VMAP_BATCHED(shifted, shifted_batched);

void run(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = shifted(x[i]);
}

int main() {
  try {
    Tensor x = arange(6).reshape({3, 2}).to(kFloat), out = zeros({3});
    run(x, out);
    std::cout << out << "\n";
  } catch (const vmap::Error& error) {
    std::cout << error.what() << "\n";
    return 1;
  }
}
