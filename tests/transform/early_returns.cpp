// `return` before the end of a function of this file the loop calls: each example
// leaves the rest of the body with its own result (masks); a `switch` on a per-example
// integer, with fallthrough and default, runs each example from its own label.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

// A piecewise function with early returns on a per-example scalar.
float piecewise(float v) {
  if (v < -1.0f)
    return -1.0f;
  if (v > 1.0f)
    return 1;  // converted to float, as the return type says
  float cubic = v * v * v;
  return 0.5f * (3.0f * v - cubic);
}
// CHECK-LABEL: batched clone of 'piecewise'
// CHECK: vb::Returns _b_returns;  // clang-vmap: early returns per example
// CHECK-NEXT: { vb::Where _b_where0(v < -1.0f);  // line 10
// CHECK-NEXT: _b_returns.exit(vb::scalar_cast<float>(-1.0f));  // line 11
// CHECK: _b_returns.exit(vb::scalar_cast<float>(1));  // line 13
// CHECK: return _b_returns.result(vb::scalar_cast<float>(0.5f * (3.0f * v - cubic)));  // line 15

// A linear search that returns from inside its loop; -1 when not found.
int64_t find_first(const Tensor& row, float key) {
  for (int64_t j = 0; j < row.size(0); ++j)
    if (row[j].item<float>() == key)
      return j;
  return -1;
}
// CHECK-LABEL: batched clone of 'find_first'
// CHECK: vb::Returns _b_returns;
// CHECK-NEXT: { vb::Loop _b_loop0;  // line 26
// CHECK-NEXT: for (int64_t j = 0; j < row.size(0); ++j) {
// CHECK-NEXT: if (!_b_loop0.next())
// CHECK-NEXT: break;  // clang-vmap: every example has left
// CHECK-NEXT: { vb::Where _b_where0(row[j].item<float>() == key);  // line 27
// CHECK-NEXT: _b_returns.exit(vb::scalar_cast<int64_t>(j));  // line 28
// CHECK: return _b_returns.result(vb::scalar_cast<int64_t>(-1));  // line 29

// A tensor-valued helper with an early return.
Tensor normalised(const Tensor& v) {
  float norm = v.pow(2).sum().sqrt().item<float>();
  if (norm == 0.0f)
    return v;
  return v / norm;
}
// CHECK-LABEL: batched clone of 'normalised'
// CHECK: _b_returns.exit(v);  // line 45
// CHECK: return _b_returns.result(v / norm);  // line 46

void apply(const Tensor& x, const Tensor& keys, Tensor& smooth, Tensor& where_found,
           Tensor& unit) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    smooth[i] = x[i][1] * piecewise(x[i][0].item<float>());
    where_found[i] = find_first(x[i], keys[i].item<float>());
    unit[i] = normalised(x[i]);
  }
}

// Fallthrough, several labels on one statement, default in the middle, and a
// `switch` on a loop-invariant value, which stays as written.
void classify(const Tensor& codes, int64_t mode, Tensor& score, Tensor& kind) {
#pragma vmap
  for (int64_t i = 0; i < codes.size(0); ++i) {
    int64_t code = codes[i].item<int64_t>();
    int64_t s = 0;
    switch (code) {
    case 0:
      s += 1;
      [[fallthrough]];
    case 1:
      s += 10;
      break;
    default:
      s = -code;
      [[fallthrough]];
    case 5:
    case 6:
      s += 100;
      break;
    case 7:
      s = 7;
    }
    score[i] = s;
    switch (mode) {
    case 0:
      kind[i] = code * 2;
      break;
    default:
      kind[i] = code;
    }
  }
}
// CHECK-LABEL: void classify(
// CHECK: { vb::Switch _b_switch0(code, {0, 1, 5, 6, 7});  // line 69
// CHECK-NEXT: _b_switch0.enter(0);  // line 70
// CHECK-NEXT: s += 1;  // line 71
// CHECK-NEXT: _b_switch0.enter(1);  // line 73
// CHECK-NEXT: s += 10;  // line 74
// CHECK-NEXT: _b_switch0.exit();  // line 75
// CHECK-NEXT: _b_switch0.enter_default();  // line 76
// CHECK-NEXT: s = -code;  // line 77
// CHECK-NEXT: _b_switch0.enter(5);  // line 79
// CHECK-NEXT: _b_switch0.enter(6);  // line 80
// CHECK-NEXT: s += 100;  // line 81
// CHECK-NEXT: _b_switch0.exit();  // line 82
// CHECK-NEXT: _b_switch0.enter(7);  // line 83
// CHECK-NEXT: s = 7;  // line 84
// CHECK-NEXT: }
// CHECK-NEXT: vb::at(score, i) = s;  // line 86
// CHECK-NEXT: switch (mode) {  // line 87
// CHECK-NEXT: case 0:  // line 88
// CHECK-NEXT: vb::at(kind, i) = code * 2;  // line 89
// CHECK-NEXT: break;  // line 90
// CHECK-NEXT: default:  // line 91

int main() {
  Tensor x = tensor({-3.0f, 1.0f, 2.0f, 0.5f, 0.0f, 0.0f, 0.3f, 2.0f, 0.3f, 2.0f, 5.0f,
                     2.0f})
                 .reshape({4, 3});
  Tensor keys = tensor({2.0f, 7.0f, 0.0f, 2.0f});
  Tensor smooth = zeros({4});
  Tensor where_found = zeros({4}, kInt64);
  Tensor unit = zeros({4, 3});
  apply(x, keys, smooth, where_found, unit);
  std::cout << smooth << "\n" << where_found << "\n" << unit << "\n";

  Tensor codes = tensor({int64_t{0}, 1, 2, 5, 6, 7, 9, -4});
  Tensor score = zeros({8}, kInt64);
  Tensor kind = zeros({8}, kInt64);
  classify(codes, 0, score, kind);
  std::cout << score << "\n" << kind << "\n";
  classify(codes, 3, score, kind);
  std::cout << kind << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
