// A lane form divides every lane of a block at once; as written, an earlier example may
// raise (a read out of range) before a later one divides by zero. A block where a lane's
// integer division would trap runs one example at a time, in order: the rewrite raises the
// loop's own error, where it crashed (SIGFPE) before. Blocks without such a lane keep the
// lane form.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
#include <string>
using namespace vmap;

void divided_reads(const Tensor& x, const Tensor& d, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float total = 0;
    int32_t left = 100;
    for (int64_t k = 0; k < d.size(1); ++k) {
      int32_t q = 12 / d[i][k].item<int32_t>();
      left %= d[i][k].item<int32_t>() + 7;
      total += x[i][q].item<float>() + static_cast<float>(q % 5);
    }
    out[i] = total + static_cast<float>(left);
  }
}
// CHECK-LABEL: void divided_reads(
// CHECK: vb::over_lanes([](long a, vb::VaryingElements d, vb::Varying<int64_t> i, vb::VaryingElements x) __attribute__((always_inline)) {
// CHECK: { const auto _b_view0 = d[i]; const auto _b_view1 = x[i]; for (int64_t k = 0; k < a; ++k) {
// CHECK-NEXT: vb::Varying<int32_t> q = 12 / _b_view0[k].item<int32_t>();

int main() {
  Tensor x = arange(32 * 8).reshape({32, 8}).to(kFloat);
  Tensor d = full({32, 3}, 4, kInt32);
  d[20][1] = 5;
  d[27][2] = -2;
  // Every example divides by a nonzero number: lane blocks throughout.
  Tensor out = zeros({32});
  divided_reads(x, d, out);
  std::cout << out << "\n";
  // Example 9 reads column 12 of 8 and raises; example 11 would divide by zero, and never
  // runs as written.
  d[9][0] = 1;
  d[11][0] = 0;
  try {
    divided_reads(x, d, out);
    std::cout << out << "\n";
  } catch (const vmap::Error& e) {
    // The rewrite's message names the loop's line too: compare what follows it.
    const std::string what = e.what();
    std::cout << "error: " << what.substr(what.find("select:")) << "\n";
  }
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
