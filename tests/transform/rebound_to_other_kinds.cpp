// A Tensor rebound under a per-example condition to another dtype or shape (Note [One dtype
// and shape per variable] in rules/src/batched/batched_value.cpp), in the forms users write
// (an eighth hostile hunt of issue 31): an if/else that converts in both branches, a
// temporary unsqueeze inside one branch, a helper's local converted, a local of a per-example
// `while`'s body, a branch every example takes (a check raised a false error for each); a
// branch no example takes leaves the dtype (the merge made every example's v the new dtype).
// A method of an object the loop calls reads its tensor member: the overlap guard names it
// `m.w` (it printed `m->w`, which did not compile). The printed program's results are
// compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void converted_in_both(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i];
    if (x[i].sum().item<float>() > 0)
      v = v.to(kDouble);
    else
      v = v.to(kDouble) * 2;
    out[i] = v;
  }
}
// CHECK-LABEL: void converted_in_both(

void unsqueezed_for_a_while(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i];
    if (x[i].sum().item<float>() > 0) {
      v = v.unsqueeze(0) * 2;
      v = v.squeeze(0);
    }
    out[i] = v;
  }
}
// CHECK-LABEL: void unsqueezed_for_a_while(

Tensor doubled(const Tensor& v) {
  Tensor w = v;
  w = w.to(kDouble);
  return w * 2;
}

void through_a_helper(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    if (x[i][0].item<float>() > 0) out[i] = doubled(x[i]);
}
// CHECK-LABEL: void through_a_helper(

void halved_while_large(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = x[i];
    while (t.sum().item<float>() > 2) {
      Tensor d = t;
      d = d.to(kDouble);
      t = (d * 0.5).to(kFloat);
    }
    out[i] = t;
  }
}
// CHECK-LABEL: void halved_while_large(

void taken_by_all_or_none(const Tensor& x, float bound, Tensor& out, Tensor& is_double) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor v = x[i];
    if (x[i][0].item<float>() > bound) v = v.to(kDouble) * 3;
    out[i] = v;
    is_double[i] = v.dtype() == kDouble;
  }
}
// CHECK-LABEL: void taken_by_all_or_none(

struct Scale {
  Tensor w;
  Tensor apply(const Tensor& v) const { return v * w; }
};

void through_an_object(const Tensor& x, Tensor& out) {
  const Scale scale{full({2}, 2.0f)};
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = scale.apply(x[i]);
}
// CHECK-LABEL: void through_an_object(
// CHECK: ::vmap::batched::any_overlap(out, scale.w)

int main() {
  const Tensor x = tensor({1.0f, 2.0f, -3.0f, -4.0f, 0.5f, 0.25f}).reshape({3, 2});
  Tensor doubles = zeros({3, 2}, kDouble), floats = zeros({3, 2});
  converted_in_both(x, doubles);
  std::cout << doubles;
  unsqueezed_for_a_while(x, floats);
  std::cout << floats;
  doubles.zero_();
  through_a_helper(x, doubles);
  std::cout << doubles;
  halved_while_large(x * 3, floats);
  std::cout << floats;
  for (const float bound : {-10.0f, 10.0f}) {
    Tensor is_double = zeros({3}, kBool);
    taken_by_all_or_none(x, bound, floats, is_double);
    std::cout << floats << is_double;
  }
  through_an_object(x, floats);
  std::cout << floats << "\n";
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
