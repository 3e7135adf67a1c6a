// A lane form's element views that a loop reads the same on every iteration are selected
// once, before the loop (Note [Views hoisted out of lane loops] in transform/fuse_lanes.cpp):
// of the outermost loop they are the same in, by a name declared in braces around it; a
// view whose index the loop writes stays where it is. Selected earlier than written, a view
// that would raise (an index out of range, in a loop that runs no iteration) sends its block
// one example at a time, as written: no error, the same values. The printed program's
// results are compared with the loop's as written.
#include <vmap/vmap.hpp>
#include <cstdint>
#include <iostream>
using namespace vmap;

// Nested loops, the inner one a statement with no braces: x[i] before the outer loop,
// x[i][k] (from it) before the inner one; w[r] changes with r.
void nested(const Tensor& x, const Tensor& w, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float total = 0;
    for (int64_t k = 0; k < x.size(1); ++k)
      for (int64_t r = 0; r < w.size(0); ++r)
        total += x[i][k].item<float>() * w[r][k].item<float>();
    out[i] = total;
  }
}
// CHECK-LABEL: void nested(
// CHECK: vb::over_lanes(
// CHECK-NEXT: vb::Varying<float> total = 0;
// CHECK-NEXT: { const auto _b_view0 = x[i]; for (int64_t k = 0; k < a; ++k)
// CHECK-NEXT: { const auto _b_view1 = _b_view0[k]; for (int64_t r = 0; r < b; ++r)
// CHECK-NEXT: total += _b_view1.item<float>() * w[r][k].item<float>(); } }

// An index the loop writes (m) keeps its view in the loop; one it does not (i) is hoisted.
void written_index(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float total = 0;
    int64_t m = 0;
    for (int64_t k = 0; k < x.size(1); ++k) {
      m = (m + 2) % x.size(1);
      total += x[i][m].item<float>() - x[i][k].item<float>() * 0.5f;
    }
    out[i] = total;
  }
}
// CHECK-LABEL: void written_index(
// CHECK: vb::over_lanes(
// CHECK: { const auto _b_view0 = x[i]; for (int64_t k = 0; k < a; ++k) {
// CHECK-NEXT: m = (m + 2) % a;
// CHECK-NEXT: total += _b_view0[m].item<float>() - _b_view0[k].item<float>() * 0.5f;

// A view selected by an element read (a negative pick counts from the end: the lane form
// misses, the block runs one example at a time); and one out of range for the last
// examples, in a loop that runs `count` iterations, none in the second call.
void picked_rows(const Tensor& x, const Tensor& picks, int64_t count, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < picks.size(0); ++i) {
    float total = 0;
    for (int64_t k = 0; k < x.size(1); ++k) total += x[picks[i].item<int64_t>()][k].item<float>();
    for (int64_t k = 0; k < count; ++k) total += x[i + 3][k].item<float>();
    out[i] = total;
  }
}
// CHECK-LABEL: void picked_rows(
// CHECK: vb::over_lanes(
// CHECK: { const auto _b_view0 = x[picks[i].item<int64_t>()]; for (int64_t k = 0; k < a; ++k) total += _b_view0[k].item<float>(); }
// CHECK-NEXT: { const auto _b_view0 = x[i + 3]; for (int64_t k = 0; k < count; ++k) total += _b_view0[k].item<float>(); }

int main() {
  manual_seed(5);
  const Tensor x = randn({19, 7});
  const Tensor w = randn({3, 7});
  Tensor nested_out = zeros({19});
  nested(x, w, nested_out);
  std::cout << nested_out << "\n";
  Tensor written = zeros({19});
  written_index(x, written);
  std::cout << written << "\n";
  Tensor picks = (arange(16) * 5) % 19;
  picks[9] = -1;
  Tensor picked = zeros({16});
  picked_rows(x, picks, 2, picked);
  std::cout << picked << "\n";
  // x[i + 3] is out of range for i >= 16: as written, never read where count is 0.
  Tensor all_picks = arange(19);
  Tensor none = zeros({19});
  picked_rows(x, all_picks, 0, none);
  std::cout << none << "\n";
}

// CHECK: int main() {

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
