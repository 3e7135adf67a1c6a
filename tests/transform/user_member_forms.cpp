// LibTorch's member forms of the pointwise and product ops (`a.add(b)`, `x.mm(w)`, the
// comparisons and logical ops), with C++ scalar `other`s, add/sub's alpha (a literal and a
// loop-invariant parameter; also in the free form), expand_as both ways, and members called
// on a loop-invariant object with a per-example argument (`w.mv(y[i])`). None of them may
// run per example.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void members(const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& seq,
             const Tensor& k, float alpha, Tensor& affine, Tensor& mixed, Tensor& masks,
             Tensor& prods, Tensor& ints, Tensor& scores) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor h = x[i].mm(w).add(y[i], 2);
    affine[i] = h.sub(h.mean(), alpha).mul(w[2].expand_as(x[i]));
    mixed[i] = y[i].mul(0.5).div(x[i][0].abs().add(1.0)).maximum(w.mv(y[i]))
                   .minimum(y[i].expand_as(w).sum(0)).add(w[1].add(y[i], alpha));
    masks[i] = y[i].gt(0.5).logical_and(k[i].ne(2)).logical_or(y[i].le(x[i].mean().sub(1.0)))
                   .logical_or(w[0].lt(y[i].sub(1.0))).logical_not();
    prods[i] = seq[i].bmm(seq[i].transpose(1, 2)).sum(0).mv(y[i].narrow(0, 0, 3))
                   .add(x[i][0].dot(y[i]));
    ints[i] = k[i].mul(3).sub(k[i].maximum(y[i].gt(0.0).to(kInt))).add(1)
                  .div(k[i].ge(0).logical_and(k[i].lt(5)).eq(true).add(1));
    scores[i] = x[i].sin().mul(x[i].cos()).log_softmax(1).triu(1).sum(0)
                    .add(x[i].movedim(0, 1).tril().sum(1))
                    .sub(x[i].movedim({0, 1}, {1, 0}).sum(1));
    if (x[i].scalar_type() == kFloat)
      scores[i] += 1.0;
    affine[i] -= sub(h, y[i], 2);  // the free form takes alpha too
  }
}
// CHECK-LABEL: void members(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 14
// CHECK: vb::Value h = vb::at(x, i).mm(w).add(vb::at(y, i), 2);  // line 15
// CHECK: vb::at(affine, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& h, const auto& a, const auto& alpha, const auto& b) { return h.sub(a, alpha).mul(b); }, h, h.mean(), alpha, vb::Value(w[2]).expand_as(vb::at(x, i)));  // line 16
// CHECK: vb::at(mixed, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d, const auto& e, const auto& alpha) { return a.mul(0.5).div(b.abs().add(1.0)).maximum(c)
// CHECK-NEXT: .minimum(d).add(vb::add(e, a, alpha)); }, vb::at(y, i), vb::at(x, i)[0], vb::mv(w, vb::at(y, i)), vb::at(y, i).expand_as(w).sum(0), w[1], alpha);  // line 17
// CHECK: vb::at(masks, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d) { return a.gt(0.5).logical_and(b.ne(2)).logical_or(a.le(c.sub(1.0)))
// CHECK-NEXT: .logical_or(vb::lt(d, a.sub(1.0))).logical_not(); }, vb::at(y, i), vb::at(k, i), vb::at(x, i).mean(), w[0]);  // line 19
// CHECK: vb::at(prods, i) = vb::at(seq, i).bmm(vb::at(seq, i).transpose(1, 2)).sum(0).mv(vb::at(y, i).narrow(0, 0, 3))
// CHECK-NEXT: .add(vb::at(x, i)[0].dot(vb::at(y, i)));  // line 21
// CHECK: vb::at(ints, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b) { return a.mul(3).sub(a.maximum(b)).add(1)
// CHECK-NEXT: .div(a.ge(0).logical_and(a.lt(5)).eq(true).add(1)); }, vb::at(k, i), vb::at(y, i).gt(0.0).to(kInt));  // line 23
// CHECK: vb::at(scores, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c) { return a
// CHECK-NEXT: .add(b)
// CHECK-NEXT: .sub(c); }, vb::at(x, i).sin().mul(vb::at(x, i).cos()).log_softmax(1).triu(1).sum(0), vb::at(x, i).movedim(0, 1).tril().sum(1), vb::at(x, i).movedim({0, 1}, {1, 0}).sum(1));  // line 25
// CHECK: if (vb::at(x, i).scalar_type() == kFloat) {  // line 28
// CHECK-NEXT: vb::at(scores, i) += 1.0;  // line 29
// CHECK: vb::at(affine, i) -= vb::sub(h, vb::at(y, i), 2);  // line 30
// CHECK-NOT: per_example

int main() {
  const int64_t n = 5;
  Tensor x = (arange(n * 12).reshape({n, 3, 4}).to(kFloat) * 0.37).sin();
  Tensor y = (arange(n * 4).reshape({n, 4}).to(kFloat) * 0.61).cos() * 2.0;
  Tensor w = (arange(16).reshape({4, 4}).to(kFloat) * 0.23).sin();
  Tensor seq = (arange(n * 24).reshape({n, 2, 3, 4}).to(kFloat) * 0.13).cos();
  Tensor k = (arange(n * 4).reshape({n, 4}) - 7).to(kInt);
  Tensor affine = zeros({n, 3, 4}), mixed = zeros({n, 4}), masks = zeros({n, 4}, kBool);
  Tensor prods = zeros({n, 3}), ints = zeros({n, 4}, kInt), scores = zeros({n, 4});
  members(x, y, w, seq, k, -0.5f, affine, mixed, masks, prods, ints, scores);
  std::cout << affine << "\n" << mixed << "\n" << masks << "\n" << prods << "\n" << ints
            << "\n" << scores << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
