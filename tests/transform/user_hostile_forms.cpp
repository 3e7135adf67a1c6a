// Forms a hostile tester tries that clang-vmap accepts (issue 18), each run both ways: writes
// through a forwarding reference to a slot and through copies and views of a slot (a reshape
// of a strided slot copies: its write stays local), a loop header spelled by a macro, vmap
// levels from a macro nested in each other, a window of an example's own row. (Windows at a
// per-example start, writes through a const Tensor: errors/hostile_aliasing_forms.cpp.)
#include <vmap/vmap.hpp>

#include <iostream>
using namespace vmap;

#define FOR_ROWS(i, t) for (int64_t i = 0; i < (t).size(0); ++i)
#define VMAP_FOR(i, n) _Pragma("vmap") for (int64_t i = 0; i < (n); ++i)

void forwarding_reference_to_slot(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    auto&& r = out[i];
    r = x[i] * 2;
  }
}
// CHECK-LABEL: void forwarding_reference_to_slot(
// CHECK: vb::Value&& r = vb::at(out, i);  // line 17
// CHECK: r = vb::at(x, i) * 2;  // line 18

void copy_of_slot_written_in_place(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = out[i];
    t *= 3;
    t += x[i];
  }
}
// CHECK-LABEL: void copy_of_slot_written_in_place(
// CHECK: vb::Value t = vb::at(out, i);  // line 28
// CHECK: t *= 3;  // line 29
// CHECK: t += vb::at(x, i);  // line 30

void element_of_slot_view(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = out[i];
    row[0] = x[i].sum();
  }
}
// CHECK-LABEL: void element_of_slot_view(
// CHECK: vb::Value row = vb::at(out, i);  // line 41
// CHECK: row[0] = vb::at(x, i).sum();  // line 42

void header_from_macro(const Tensor& x, Tensor& out) {
#pragma vmap
  FOR_ROWS(i, x) { out[i] = x[i] + 1; }
}
// CHECK-LABEL: void header_from_macro(
// CHECK: vb::at(out, i) = vb::at(x, i) + 1;  // line 51

void nested_levels_from_macro(const Tensor& x, Tensor& out) {
  VMAP_FOR(i, x.size(0)) {
    VMAP_FOR(j, x.size(1)) { out[i][j] = x[i][j] + i * j; }
  }
}
// CHECK-LABEL: void nested_levels_from_macro(
// CHECK: const vb::Value j = _b_level1.index();
// CHECK: vb::at(out, i)[j] = vb::at(x, i)[j] + i * j;  // line 58

void window_of_own_row(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) out[i].narrow(0, 1, 2).copy_(x[i] * 2);
}
// CHECK-LABEL: void window_of_own_row(
// CHECK: vb::at(out, i).narrow(0, 1, 2).copy_(vb::at(x, i) * 2);  // line 67

void view_of_slot_written(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = out[i].view({-1});
    t += x[i];
  }
}
// CHECK-LABEL: void view_of_slot_written(
// CHECK: vb::Value t = vb::at(out, i).view({-1});  // line 75
// CHECK: t += vb::at(x, i);  // line 76

void select_of_slot_copy_written(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = out[i];
    t.select(0, 1) += x[i][0];
  }
}
// CHECK-LABEL: void select_of_slot_copy_written(
// CHECK: t.select(0, 1) += vb::at(x, i)[0];  // line 87

void fill_through_copy_of_slot(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = out[i];
    t.fill_(x[i].sum().item<float>());
  }
}
// CHECK-LABEL: void fill_through_copy_of_slot(
// CHECK: t.fill_(vb::at(x, i).sum().item<float>());  // line 97

// out[i] is not contiguous here: reshape copies, so the write does not reach out.
void reshape_of_strided_slot(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor t = out[i].reshape({6});
    t += x[i].sum();
  }
}
// CHECK-LABEL: void reshape_of_strided_slot(
// CHECK: vb::Value t = vb::at(out, i).reshape({6});  // line 107
// CHECK: t += vb::at(x, i).sum();  // line 108

int main() {
  const Tensor x = arange(8).reshape({4, 2}).to(kFloat) - 3;
  Tensor a = ones({4, 2}), b = ones({4, 2}), c = ones({4, 2}), d = zeros({4, 2});
  Tensor e = zeros({4, 2}), f = zeros({4, 3});
  forwarding_reference_to_slot(x, a);
  copy_of_slot_written_in_place(x, b);
  element_of_slot_view(x, c);
  header_from_macro(x, d);
  nested_levels_from_macro(x, e);
  window_of_own_row(x, f);
  std::cout << a << "\n" << b << "\n" << c << "\n" << d << "\n" << e << "\n" << f << "\n";
  Tensor g = ones({4, 2}), h = ones({4, 2}), k = ones({4, 2});
  Tensor strided = ones({4, 3, 2});
  Tensor strided_view = strided.transpose(1, 2);
  view_of_slot_written(x, g);
  select_of_slot_copy_written(x, h);
  fill_through_copy_of_slot(x, k);
  reshape_of_strided_slot(x, strided_view);
  std::cout << g << "\n" << h << "\n" << k << "\n" << strided << "\n";
}

// A named reference to a slot is rebound by `=` (as a Tensor&& is), and written by +=.

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
