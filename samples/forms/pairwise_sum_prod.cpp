// Forms of samples/pairwise_sum_prod.cpp (`total += x[i] * y[j]` over all pairs) a user
// writes first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// A double accumulator (as the seed: a float32 running sum drifts past 1e-4 at N=4096).
Tensor accumulator(const Tensor& x) {
  return zeros({}, TensorOptions(kDouble).device(x.device()));
}

// total = total + x[i] * y[j];
Tensor reduction_as_assignment(const Tensor& x, const Tensor& y) {
  Tensor total = accumulator(x);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      total = total + x[i] * y[j];
  return total;
}

// A C++ double accumulating .item<float>() products.
Tensor item_scalars(const Tensor& x, const Tensor& y) {
  double total = 0;
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      total += x[i].item<float>() * y[j].item<float>();
  return full({}, total, TensorOptions(kDouble));
}

// One vmap over i; the pairs in a plain inner loop.
Tensor plain_inner_loop(const Tensor& x, const Tensor& y) {
  Tensor total = accumulator(x);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < y.size(0); ++j)
      total += x[i] * y[j];
  return total;
}

// The inner sum as one expression: total += (x[i] * y).sum();
Tensor row_sum(const Tensor& x, const Tensor& y) {
  Tensor total = accumulator(x);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    total += (x[i] * y).sum();
  return total;
}

Tensor product(const Tensor& a, const Tensor& b) { return a.mul(b); }

Tensor through_a_helper(const Tensor& x, const Tensor& y) {
  Tensor total = accumulator(x);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      total += product(x[i], y[j]);
  return total;
}

// The product kept in a local: Tensor p = x[i] * y[j]; total += p;
Tensor through_a_local(const Tensor& x, const Tensor& y) {
  Tensor total = accumulator(x);
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor p = x[i] * y[j];
      total += p;
    }
  return total;
}

}  // namespace

static sample::CaseList cases() {
  manual_seed(3);
  using Form = Tensor (*)(const Tensor&, const Tensor&);
  sample::CaseList list;
  for (const int64_t n : {100, 4096}) {
    const Tensor x = rand({n}).to(sample::device());
    const Tensor y = rand({n}).to(sample::device());
    const auto add = [&](const std::string& form, Form f, const Tensor& a, const Tensor& b) {
      list.push_back({"pairwise_sum_prod, N=" + std::to_string(n) + " :: pairwise_sum_prod/" + form,
                      n,
                      [=](int64_t count) { return f(a.narrow(0, 0, count), b); }});
    };
    add("reduction_as_assignment", reduction_as_assignment, x, y);
    add("item_scalars", item_scalars, x, y);
    add("plain_inner_loop", plain_inner_loop, x, y);
    add("row_sum", row_sum, x, y);
    add("through_a_helper", through_a_helper, x, y);
    add("through_a_local", through_a_local, x, y);
    add("through_a_local (float64)", through_a_local, x.to(kDouble), y.to(kDouble));
  }
  return list;
}
static const sample::Registration registration(cases);
