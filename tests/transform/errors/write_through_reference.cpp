// A reference declared in the body is another name for what it is bound to: a write
// through it writes that variable, which is the same for every example (a count, the
// loop's bound, an accumulator, the output as a whole). Refused at the write, the file
// untouched (issue 18: these were rewritten into programs that printed other results).
#include <vmap/vmap.hpp>
#include <cstdint>
using namespace vmap;

void count_through_reference(const Tensor& x, Tensor& out, int64_t& count) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int64_t& c = count;
    c += 1;
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:5: error: write through the reference 'c', which is bound to 'count'
// CHECK-NEXT: c += 1;
// CHECK: note: write to the variable itself, or copy its value into a local of the body and change that
    out[i] = x[i];
  }
}

void bound_through_reference(const Tensor& x, Tensor& out) {
  int64_t n = x.size(0);
#pragma vmap
  for (int64_t i = 0; i < n; ++i) {
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:27: error: the bound of a vmap loop must not change in the loop, but 'n' does
    int64_t& rn = n;
    rn = 2;
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:5: error: write through the reference 'rn', which is bound to 'n'
    out[i] = x[i];
  }
}

void auto_reference(const Tensor& x, float& total) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto& t = total;
    t += x[i].item<float>();
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:5: error: write through the reference 't', which is bound to 'total'
  }
}

void tensor_accumulator_reference(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor& t = acc;
    t += x[i];
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:5: error: write through the reference 't', which is bound to 'acc'
  }
}

void tensor_member_through_reference(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor& t = acc;
    t.copy_(x[i]);
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:5: error: write through the reference 't', which is bound to 'acc'
  }
}

void output_through_reference(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor& o = out;
    o[i] = x[i] * 2;
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:5: error: write through the reference 'o', which is bound to 'out'
  }
}

void increment_through_reference(const Tensor& x, Tensor& out, int& hits) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    int& h = hits;
    ++h;
// CHECK: {{.*}}write_through_reference.cpp:[[@LINE-1]]:5: error: write through the reference 'h', which is bound to 'hits'
    out[i] = x[i];
  }
}
// CHECK: 8 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
