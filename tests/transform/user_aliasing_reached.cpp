// Every tensor a loop reaches is checked against what it writes (issue 31): an accumulator
// that is a row of an input, two outputs bound to one buffer, an output the object's own
// member is read from, members of a parameter, an expanded (stride 0) output, and a running
// maximum that rebinds its handle as LibTorch does. main() binds each the way that changes
// the result, so the loop must run as written there.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void sum_rows(const Tensor& x, Tensor& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += x[i];
}
// An accumulator updated in place is read whole by every example: any shared byte counts.
// CHECK-LABEL: void sum_rows(
// CHECK-NEXT: if (::vmap::batched::any_overlap(acc, x)) { // clang-vmap: inputs may overlap outputs, run as written

void rows_and_columns(const Tensor& x, Tensor& rows, Tensor& cols) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    rows[i] = x[i];
    cols[i] = x[i] * 10;
  }
}
// Two outputs: checked against each other, and each against what it reads.
// CHECK-LABEL: void rows_and_columns(
// CHECK-NEXT: if (::vmap::batched::any_overlap(rows, cols) ||
// CHECK-NEXT: ::vmap::batched::unsafe_overlap(rows, x) ||
// CHECK-NEXT: ::vmap::batched::unsafe_overlap(cols, x)) {

void running_max(const Tensor& x, Tensor& mx) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    mx = maximum(mx, x[i]);
}
// `mx = maximum(mx, e)` makes a new tensor and rebinds mx to it: it writes no elements, so
// nothing needs checking, and a copy of the old handle keeps the old values.
// CHECK-LABEL: void running_max(
// CHECK-NOT: overlap
// CHECK: vb::accumulate_rebinding(mx, vb::at(x, i), vb::Reduce::max);  // line 35

void row_max_kept(const Tensor& x, Tensor& first, Tensor& best) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor m = x[i][0].clone();
    Tensor kept = m;
#pragma vmap
    for (int64_t j = 0; j < x.size(1); ++j)
      m = maximum(m, x[i][j]);
    first[i] = kept;
    best[i] = m;
  }
}
// CHECK-LABEL: void row_max_kept(
// CHECK: vb::accumulate_rebinding(m, vb::at(x, i)[j], vb::Reduce::max);  // line 50

void double_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * 2;
}

void number_rows(Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < out.size(0); ++i)
    out[i] = i;
}
// An output nothing else reaches: only its own elements are checked (every guard checks
// them too: double_rows's unsafe_overlap(out, x)).
// CHECK-LABEL: void number_rows(
// CHECK-NEXT: if (::vmap::batched::internal_overlap(out)) {

struct Layer {
  Tensor W_;
  void apply(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = matmul(W_, x[i]);
  }
};
// CHECK-LABEL: void apply(
// CHECK-NEXT: if (::vmap::batched::any_overlap(out, this->W_) ||
// CHECK-NEXT: ::vmap::batched::unsafe_overlap(out, x)) {

struct Config {
  Tensor scale;
};

void scale_rows(const Config& config, const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * config.scale.sum();
}
// CHECK-LABEL: void scale_rows(
// CHECK: ::vmap::batched::any_overlap(out, config.scale)) {

// What this file's functions called in the loop reach besides their arguments: a global,
// and a member of the object the loop's own member function runs on.
Tensor g_weight;

Tensor project(const Tensor& v) { return matmul(g_weight, v) * 0.5; }

void project_rows(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = project(x[i]);
}
// CHECK-LABEL: void project_rows(
// CHECK: ::vmap::batched::any_overlap(out, ::g_weight)) {

struct Model {
  Tensor W_;
  Tensor squash(const Tensor& v) const { return matmul(W_, v) * 0.5; }
  void run(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = squash(x[i]);
  }
};
// CHECK-LABEL: void run(
// CHECK: ::vmap::batched::any_overlap(out, this->W_)) {

// A static member and a tensor captured by a lambda the loop sits in.
struct Table {
  static Tensor weights;
};
Tensor Table::weights;

void through_static_and_capture(const Tensor& x, Tensor& out, const Tensor& shift) {
  auto run = [&] {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = matmul(Table::weights, x[i]) + shift.sum();
  };
  run();
}
// CHECK-LABEL: void through_static_and_capture(
// CHECK: if (::vmap::batched::any_overlap(out, ::Table::weights) ||
// CHECK-NEXT: ::vmap::batched::unsafe_overlap(out, x) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(out, shift)) {

void disjoint_windows() {
  Tensor rows = arange(12).reshape({4, 3}).to(kFloat);
  Tensor top = rows.narrow(0, 0, 2);
  Tensor bottom = rows.narrow(0, 2, 2);
#pragma vmap
  for (int64_t i = 0; i < 2; ++i)
    bottom[i] = top[i] * 2;
  std::cout << rows << "\n";
}
// Two windows of one tensor that do not meet: nothing between them to check.
// CHECK-LABEL: void disjoint_windows(
// CHECK-NOT: overlap(bottom, top)
// CHECK: vb::at(bottom, i) = vb::at(top, i) * 2;  // line 149

int main() {
  Tensor x = arange(6).reshape({3, 2}).to(kFloat);
  Tensor acc = x[1];  // a row of the input
  sum_rows(x, acc);
  std::cout << x << "\n";
  Tensor other = zeros({2});
  sum_rows(x, other);  // distinct: batched
  std::cout << other << "\n";

  Tensor square = arange(9).reshape({3, 3}).to(kFloat);
  Tensor grid = zeros({3, 3});
  Tensor columns = grid.t();  // the same buffer, transposed
  rows_and_columns(square, grid, columns);
  std::cout << grid << "\n";

  Tensor mx = full({2}, -1.0);
  Tensor keep = mx;  // a copy of the handle: keeps the old values
  running_max(x, mx);
  std::cout << keep << mx << "\n";
  Tensor first = zeros({3}), best = zeros({3});
  row_max_kept(x, first, best);
  std::cout << first << best << "\n";

  Tensor base = zeros({1, 2});
  Tensor wide = base.expand({3, 2});  // stride 0: every row is one memory location
  double_rows(x, wide);
  std::cout << base << "\n";
  Tensor column = zeros({1});
  Tensor repeated = column.expand({4});
  number_rows(repeated);
  std::cout << column << "\n";

  Layer layer{square.clone()};
  layer.apply(square, layer.W_);  // writes the weights it multiplies by
  std::cout << layer.W_ << "\n";
  Tensor separate = zeros({3, 3});
  layer.apply(square, separate);
  std::cout << separate << "\n";

  Config config{square.clone()};
  scale_rows(config, square, config.scale);
  std::cout << config.scale << "\n";

  g_weight = square.clone();
  project_rows(square, g_weight);  // the global the helper multiplies by
  std::cout << g_weight << "\n";
  Model model{square.clone()};
  model.run(square, model.W_);
  std::cout << model.W_ << "\n";

  Table::weights = square.clone();
  Tensor shift = square.clone();
  through_static_and_capture(square, Table::weights, shift);
  through_static_and_capture(square, shift, shift);
  std::cout << Table::weights << shift << "\n";

  disjoint_windows();
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
