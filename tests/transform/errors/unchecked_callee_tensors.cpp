// Tensors a same-file function called in the loop reaches that the overlap check cannot name
// before the loop: a static local (`weights()` hands out its storage, and the caller passes
// it as the output), a member of an object the function makes itself, and a tensor that a
// function whose body the tool cannot read returns (issue 31). Each may hold an output's
// elements, so each is refused at the call. (What the check can name is checked at run time:
// ../user_aliasing_through_callees.cpp.)
#include <vmap/vmap.hpp>

#include <map>
#include <string>
using namespace vmap;

Tensor& weights() {
  static Tensor table = ones({3, 3});
  return table;
}

void through_a_static_local(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = matmul(weights(), x[i]);
// CHECK: {{.*}}unchecked_callee_tensors.cpp:[[@LINE-1]]:21: error: 'weights', called in the loop, reaches the tensor 'table' (a static local variable), which may share elements with the loop's outputs and cannot be checked for that before the loop
// CHECK: note: pass the tensor to 'weights' as an argument, or keep it in a global or a member of an object the loop's function can name
}

struct Holder {
  Tensor buf;
};

Tensor scaled(const Holder& holder, const Tensor& v) {
  Holder copy = holder;  // a handle copy: the same elements as the caller's
  return matmul(copy.buf, v);
}

void through_a_copy_in_the_callee(const Holder& holder, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = scaled(holder, x[i]);
// CHECK: {{.*}}unchecked_callee_tensors.cpp:[[@LINE-1]]:14: error: 'scaled', called in the loop, reaches the tensor 'copy.buf' (a member of an object it does not receive from the loop's function)
}

void through_a_library_call(const std::map<std::string, Tensor>& params, const Tensor& x,
                            Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = matmul(params.at("w"), x[i]);
// CHECK: {{.*}}unchecked_callee_tensors.cpp:[[@LINE-1]]:21: error: the tensor 'params.at("w")' may share elements with the loop's outputs, and cannot be checked for that before the loop
}

void through_a_pointer_array(const Tensor* layers, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = matmul(layers[1], x[i]);
// CHECK: {{.*}}unchecked_callee_tensors.cpp:[[@LINE-1]]:21: error: the tensor 'layers[1]' may share elements with the loop's outputs, and cannot be checked for that before the loop
}
// CHECK: 4 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
