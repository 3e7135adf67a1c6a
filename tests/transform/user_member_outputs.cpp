// Outputs and accumulators that are data members (SPEC section 7): `this->out_[i]`,
// `out_[i][j]` in nested loops, `out_.select(0, i).copy_(...)`, a reduction into a member,
// and a member of an object reached through a reference (`s.out[i]` with `S& s`). Each is
// an output like a parameter: stored per example, and checked by the overlap guard
// against what the loop reads (here `x`, and the member `W_` it reads).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

class Layer {
 public:
  Layer(int64_t n, int64_t d)
      : W_((arange(d * d).reshape({d, d}).to(kFloat) * 0.3).cos()), out_(zeros({n, d})),
        pairs_(zeros({n, d})), rows_(zeros({n, d})), total_(zeros({d})) {}

  void forward(const Tensor& x) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) {
      this->out_[i] = matmul(W_, x[i]);
      out_.select(0, i) += 1.0;
      rows_.select(0, i).copy_(x[i] * 2);
      total_ += x[i];
    }
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i) {
#pragma vmap
      for (int64_t j = 0; j < x.size(1); ++j)
        pairs_[i][j] = x[i][j] * W_[j][j] + i;
    }
  }
// CHECK-LABEL: void forward(
// CHECK: if (::vmap::batched::any_overlap(this->out_, this->rows_) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(this->out_, this->total_) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(this->out_, this->W_) ||
// CHECK-NEXT: ::vmap::batched::unsafe_overlap(this->out_, x) ||
// CHECK: vb::at(this->out_, i) = vb::matmul(W_, vb::at(x, i));  // line 19
// CHECK: vb::select(out_, 0, i) += 1.0;  // line 20
// CHECK: vb::select(rows_, 0, i).copy_(vb::at(x, i) * 2);  // line 21
// CHECK: vb::accumulate(total_, vb::at(x, i), vb::Reduce::add);  // line 22
// CHECK: any_overlap(this->pairs_, this->W_)
// CHECK: vb::at(pairs_, i)[j] = vb::fused({{.*}}, vb::at(x, i)[j], vb::at(W_, j)[j], i);  // line 28

  void print() const {
    std::cout << out_ << "\n" << rows_ << "\n" << total_ << "\n" << pairs_ << "\n";
  }

 private:
  Tensor W_;
  Tensor out_, pairs_, rows_, total_;
};

struct State {
  Tensor out;
  Tensor best;
};

void fill_state(State& s, const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    s.out[i] = x[i].sum() * 0.5;
    s.best = maximum(s.best, x[i]);
  }
}
// CHECK-LABEL: void fill_state(
// CHECK: if (::vmap::batched::any_overlap(s.out, s.best) ||
// CHECK-NEXT: ::vmap::batched::unsafe_overlap(s.out, x)) {
// CHECK: vb::at(s.out, i) = vb::at(x, i).sum() * 0.5;  // line 60
// CHECK: vb::accumulate_rebinding(s.best, vb::at(x, i), vb::Reduce::max);  // line 61

int main() {
  Tensor x = (arange(12).reshape({4, 3}).to(kFloat) * 0.9).sin();
  Layer layer(4, 3);
  layer.forward(x);
  layer.print();
  State s{zeros({4}), full({3}, -1.0f)};
  fill_state(s, x);
  std::cout << s.out << "\n" << s.best << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
