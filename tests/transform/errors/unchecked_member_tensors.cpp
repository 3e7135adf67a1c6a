// Tensors reached through data members that the overlap check cannot name before the loop,
// or that a handle in the body would write through (issue 31). The loop may write what they
// hold, so each is refused at its line and the file left untouched. (Members the check can
// name, `W_` and `config.scale`, are checked at run time: ../user_aliasing_reached.cpp.)
#include <vmap/vmap.hpp>

#include <vector>
using namespace vmap;

struct Layer {
  Tensor W;
};

void through_each_layer(const std::vector<Layer>& layers, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = x[i];
    for (const Layer& layer : layers) h = matmul(layer.W, h);
// CHECK: {{.*}}unchecked_member_tensors.cpp:[[@LINE-1]]:50: error: the tensor 'layer.W' may share elements with the loop's outputs, and cannot be checked for that before the loop
    out[i] = h;
  }
}

Layer make_layer() { return Layer{ones({3, 3})}; }

void through_a_result(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = matmul(make_layer().W, x[i]);
// CHECK: {{.*}}unchecked_member_tensors.cpp:[[@LINE-1]]:21: error: the tensor 'make_layer().W' may share elements with the loop's outputs, and cannot be checked for that before the loop
}

struct Model {
  Tensor W_;
  void first_column(const Tensor& x, Tensor& out) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) {
      Tensor w = W_;
      w[0] = x[i].sum();
// CHECK: {{.*}}unchecked_member_tensors.cpp:[[@LINE-1]]:7: error: in-place write to 'w', which shares its elements with 'this->W_'
      out[i] = w;
// CHECK: {{.*}}unchecked_member_tensors.cpp:[[@LINE-1]]:16: error: loop-carried dependence: 'this->W_' is written per example and read here at a slot of another iteration
    }
  }
};
// CHECK: 4 errors generated.

// RUN: not %clang-vmap %s -- %flags 2>&1 >%t.stdout | %strip | %FileCheck %s
// RUN: %refused-file-untouched %s %t %flags
