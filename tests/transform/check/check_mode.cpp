// clang-vmap --check (SPEC section 7): each batched loop also runs as written, from the
// same state, and every output and accumulator is compared (Note [Check mode] in
// vmap/batched.hpp). Rewritten with --check by transform.golden.check_mode, run against
// the program as written by transform.check.check_mode, and with a wrong rewrite planted
// by transform.check.planted_* (tests/transform/CMakeLists.txt).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// An output written per example, a C++ scalar accumulator and a tensor accumulator that
// the loop rebinds (`maximum` returns a new tensor).
void scale_and_reduce(const Tensor& x, Tensor& out, float& total, Tensor& peak) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i] * 2.5f + 1;
    total += x[i].sum().item<float>();
    peak = maximum(peak, x[i]);
  }
}

// CHECK-LABEL: void scale_and_reduce(
// CHECK:      { // clang-vmap --check: the loop as written, then batched from the same state, compared
// CHECK-NEXT:   ::vmap::batched::CheckedOutput _b_check0(out);
// CHECK-NEXT:   ::vmap::batched::CheckedOutput _b_check1(total);
// CHECK-NEXT:   ::vmap::batched::CheckedOutput _b_check2(peak);
// CHECK-NEXT:   for (int64_t i = 0; i < x.size(0); ++i) {
// CHECK-NEXT:       out[i] = x[i] * 2.5f + 1;
// CHECK-NEXT:       total += x[i].sum().item<float>();
// CHECK-NEXT:       peak = maximum(peak, x[i]);
// CHECK-NEXT:     }
// CHECK-NEXT:   _b_check0.ran_as_written(out);
// CHECK-NEXT:   _b_check1.ran_as_written(total);
// CHECK-NEXT:   _b_check2.ran_as_written(peak);
// CHECK-NEXT:   _b_check0.put_back(out);
// CHECK-NEXT:   _b_check1.put_back(total);
// CHECK-NEXT:   _b_check2.put_back(peak);
// CHECK-NEXT:   try {
// CHECK-NEXT:     if (::vmap::batched::any_overlap(out, peak) ||
// CHECK-NEXT:         ::vmap::batched::unsafe_overlap(out, x) ||
// CHECK-NEXT:         ::vmap::batched::any_overlap(out, ::vmap::from_blob(const_cast<void *>(static_cast<const void *>(&total)), {static_cast<int64_t>(sizeof(total))}, ::vmap::kBool)) ||
// CHECK-NEXT:         ::vmap::batched::any_overlap(peak, {{.*}}(&total)){{.*}} ||
// CHECK-NEXT:         ::vmap::batched::any_overlap(x, {{.*}}(&total)){{.*}}) { // clang-vmap: inputs may overlap outputs, run as written
// CHECK:          } else { // clang-vmap: batched from line 14
// CHECK:            vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"[](const auto& a) { return a * 2.5f + 1; }"}, [](const auto& a) { {{return a}} * 2.5f + 1; }, vb::at(x, i));  // line 15
// CHECK:            vb::accumulate_rebinding(peak, vb::at(x, i), vb::Reduce::max);  // line 17
// CHECK-NEXT:     }
// CHECK-NEXT:   } catch (const std::exception &_b_error) {
// CHECK-NEXT:     ::vmap::batched::check_threw(_b_error, "{{.*}}check_mode.cpp", 14);
// CHECK-NEXT:   }
// CHECK-NEXT:   _b_check0.compare(out, {"{{.*}}check_mode.cpp", 14, "out", false, 1});
// CHECK-NEXT:   _b_check1.compare(total, {"{{.*}}check_mode.cpp", 14, "total", true, 0});
// CHECK-NEXT:   _b_check2.compare(peak, {"{{.*}}check_mode.cpp", 14, "peak", true, 0});
// CHECK-NEXT: }

// Nested vmaps: the example index of `mask` is (i, j); the overlap guard's copy of the loop
// sits inside the check's block.
void pair_mask(const Tensor& a, const Tensor& b, Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
#pragma vmap
    for (int64_t j = 0; j < b.size(0); ++j)
      mask[i][j] = (a[i] - b[j]).abs().sum() < 3;
  }
}

// CHECK-LABEL: void pair_mask(
// CHECK:      { // clang-vmap --check: the loop as written, then batched from the same state, compared
// CHECK-NEXT:   ::vmap::batched::CheckedOutput _b_check0(mask);
// CHECK-NEXT:   for (int64_t i = 0; i < a.size(0); ++i) {
// CHECK-NEXT:       for (int64_t j = 0; j < b.size(0); ++j)
// CHECK-NEXT:         mask[i][j] = (a[i] - b[j]).abs().sum() < 3;
// CHECK-NEXT:     }
// CHECK-NEXT:   _b_check0.ran_as_written(mask);
// CHECK-NEXT:   _b_check0.put_back(mask);
// CHECK-NEXT:   try {
// CHECK-NEXT:     if (::vmap::batched::any_overlap(mask, a) ||
// CHECK:        } else { // clang-vmap: batched from line 59
// CHECK:        check_threw(_b_error, "{{.*}}check_mode.cpp", 59);
// CHECK-NEXT:   }
// CHECK-NEXT:   _b_check0.compare(mask, {"{{.*}}check_mode.cpp", 59, "mask", false, 2});
// CHECK-NEXT: }

int main() {
  try {
    Tensor x = arange(12).reshape({4, 3}).to(kFloat) - 5;
    Tensor out = zeros({4, 3});
    float total = 0.5f;
    Tensor peak = full({3}, -100.f);
    scale_and_reduce(x, out, total, peak);
    std::cout << out << "\n" << total << "\n" << peak << "\n";

    Tensor a = arange(8).reshape({4, 2}).to(kFloat);
    Tensor mask = zeros({4, 4}, kBool);
    pair_mask(a, a * 0.5f + 1, mask);
    std::cout << mask << "\n";
  } catch (const vmap::Error& error) {
    std::cout << error.what() << "\n";
    return 1;
  }
}

// RUN: %clang-vmap --check %s -- %flags | %strip | %FileCheck %s
