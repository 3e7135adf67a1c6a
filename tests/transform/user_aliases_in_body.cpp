// Names declared in the body that reach other storage (Note [Aliases in the body]): a
// reference bound to a temporary is a local copy; a const reference only reads; a copy
// of a Tensor is a handle to the same elements, so an in-place write through it writes
// what it shares, which is accepted when that is the example's own slot.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// Const references to values the same for every example, and to the induction variable.
void const_references(const Tensor& x, const Tensor& bias, int64_t shift, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const Tensor& b = bias;
    const int64_t& s = shift;
    const int64_t& r = i;
    out[i] = x[i] * r + b[i] + s;
  }
}
// CHECK-LABEL: void const_references(
// CHECK: } else { // clang-vmap: batched from line 12
// CHECK: const Tensor& b = bias;  // line 13
// CHECK: const vb::Value& r = i;  // line 15
// CHECK: vb::at(out, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& r, const auto& c, const auto& s) { return a * r + c + s; }, vb::at(x, i), r, vb::at(b, i), s);  // line 16

// References bound to temporaries keep them alive: a view of the example's row.
void references_to_views(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    const Tensor& row = x[i];
    auto&& slot = out[i];
    slot.copy_(row * 2 + 1);
  }
}
// CHECK-LABEL: void references_to_views(
// CHECK: const vb::Value& row = vb::at(x, i);  // line 29
// CHECK: slot.copy_(row * 2 + 1);  // line 31

// Copies of a slot of the output, written in place: they write the example's slot.
void copies_of_slots(const Tensor& x, Tensor& out, Tensor& sums) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = out[i];
    row += x[i];
    auto total = sums[i];
    total.copy_(x[i].sum());
    Tensor whole = out;
    whole[i][0] = x[i][0] - 1;
  }
}
// CHECK-LABEL: void copies_of_slots(
// CHECK: vb::Value row = vb::at(out, i);  // line 42
// CHECK: row += vb::at(x, i);  // line 43
// CHECK: total.copy_(vb::at(x, i).sum());  // line 45
// CHECK: whole[i][0] = vb::at(x, i)[0] - 1;  // line 47

// Copies of fresh per-example tensors, and a copy of a local: in place on its own
// elements, which the local sees too.
void copies_of_fresh(const Tensor& x, Tensor& out, Tensor& seen) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = x[i] * 2;
    h += 1;
    Tensor e = exp(x[i][0]);
    e *= 0.5;
    Tensor base = zeros({});
    Tensor view = base;
    view += x[i].sum();
    out[i] = h + e;
    seen[i] = base;
  }
}
// CHECK-LABEL: void copies_of_fresh(
// CHECK: h += 1;  // line 62
// CHECK: base = vb::where(i == i, base, base);  // clang-vmap: one 'base' per example
// CHECK: view += vb::at(x, i).sum();  // line 67
// CHECK: vb::at(seen, i) = base;  // line 69

int main() {
  Tensor x = arange(12).reshape({4, 3}).to(kFloat) * 0.25;
  Tensor bias = arange(4).to(kFloat);
  Tensor out = zeros({4, 3});
  const_references(x, bias.reshape({4, 1}), 2, out);
  std::cout << out << "\n";
  references_to_views(x, out);
  std::cout << out << "\n";
  Tensor sums = zeros({4});
  copies_of_slots(x, out, sums);
  std::cout << out << "\n" << sums << "\n";
  Tensor seen = zeros({4});
  copies_of_fresh(x, out, seen);
  std::cout << out << "\n" << seen << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
