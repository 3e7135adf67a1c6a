// A same-file function called in the loop reads what the loop writes or reduces into: a
// global output, the object's own member output (directly, and through a function returning
// a reference to it), an accumulator updated in place and one rebound by `maximum`. As
// written each example sees the writes of the examples before it (out = {4, 8, 16, 32} from
// ones and arange(4)); batched, every example would read the old values ({4, 5, 6, 7}).
// The same for C++ scalars: a global, a static and a member the loop reduces into, read
// by a helper (as written {1, 2, 3, 4} into 1 gives 120, batched 11). Each is refused at
// the call (issue 31).
#include <vmap/vmap.hpp>
using namespace vmap;

Tensor g_out;
Tensor plus_total(const Tensor& v) { return v + g_out.sum(); }

void global_output(const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    g_out[i] = plus_total(x[i]);
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:16: error: 'plus_total', called in the loop, reads 'g_out', which the loop writes: each example would see what the examples before it wrote
// CHECK: note: pass what the call needs as an argument (this example's slot, or a copy made before the loop with '.clone()')
}

Tensor& out_ref() { return g_out; }
Tensor plus_total_through_ref(const Tensor& v) { return v + out_ref().sum(); }

void global_output_through_a_reference(const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    g_out[i] = plus_total_through_ref(x[i]);
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:16: error: 'plus_total_through_ref', called in the loop, reads 'g_out', which the loop writes
}

struct Model {
  Tensor out_;
  Tensor total(const Tensor& v) const { return v + out_.sum(); }
  void run(const Tensor& x) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out_[i] = total(x[i]);
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:17: error: 'total', called in the loop, reads 'this->out_', which the loop writes
  }
};

Tensor g_acc;
Tensor times_acc(const Tensor& v) { return v * g_acc; }

void accumulator(const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    g_acc += times_acc(x[i]);
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:14: error: 'times_acc', called in the loop, reads 'g_acc', which the loop reduces into
}

void running_maximum(const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    g_acc = maximum(g_acc, times_acc(x[i]));
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:28: error: 'times_acc', called in the loop, reads 'g_acc', which the loop reduces into
}
double g_total = 1;
double times_total(double v) { return v * g_total; }

void scalar_global(const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    g_total += times_total(x[i].item<double>());
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:16: error: 'times_total', called in the loop, reads 'g_total', which the loop reduces into
}

static double s_total = 1;
double& total_ref() { return s_total; }

void scalar_static_through_a_reference(const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    s_total = s_total + x[i].item<double>() * total_ref();
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:47: error: 'total_ref', called in the loop, reads 's_total', which the loop reduces into
}

struct Tracker {
  float best_ = -100;
  float above(float v) const { return v - best_; }
  void track(const Tensor& x) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      best_ = std::max(best_, above(x[i].item<float>()));
// CHECK: {{.*}}callee_reads_output.cpp:[[@LINE-1]]:31: error: 'above', called in the loop, reads 'this->best_', which the loop reduces into
  }
};
// CHECK: 8 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
