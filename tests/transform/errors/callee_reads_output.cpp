// A same-file function called in the loop reads what the loop writes or reduces into: a
// global output, the object's own member output (directly, and through a function returning
// a reference to it), an accumulator updated in place and one rebound by `maximum`. As
// written each example sees the writes of the examples before it (out = {4, 8, 16, 32} from
// ones and arange(4)); batched, every example would read the old values ({4, 5, 6, 7}).
// Each is refused at the call (issue 31).
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
// CHECK: 5 errors generated.
