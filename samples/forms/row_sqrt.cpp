// Forms of samples/row_sqrt.cpp (`out[i] = x[i].sqrt()`) a user writes first: Note [Forms of
// the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include <cmath>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// out[i] = sqrt(x[i]); (the free function)
void free_function(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = sqrt(x[i]);
}

void pow_half(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].pow(0.5);
}

// A plain inner loop over the row: out[i][j] = std::sqrt(x[i][j].item<float>());
void element_loop_item(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < x.size(1); ++j)
      out[i][j] = std::sqrt(x[i][j].item<float>());
}

// Two vmap levels, one element each.
void nested_vmap(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < x.size(1); ++j)
      out[i][j] = x[i][j].sqrt();
}

void copy_into_slot(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor row = x[i];
    out[i].copy_(row.sqrt());
  }
}

Tensor root(const Tensor& v) { return v.sqrt(); }

void through_a_helper(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = root(x[i]);
}

void through_a_lambda(const Tensor& x, Tensor& out) {
  const auto root_of = [](const Tensor& v) { return v.sqrt(); };
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = root_of(x[i]);
}

struct RowRoots {
  const Tensor& x;
  void into(Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = x[i].sqrt();
  }
};

void member_function(const Tensor& x, Tensor& out) { RowRoots{x}.into(out); }

}  // namespace

static sample::CaseList cases() {
  manual_seed(6);
  const Tensor x = rand({1000, 100}).to(sample::device());
  using Form = void (*)(const Tensor&, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f, const Tensor& input) {
    list.push_back({"per-row sqrt [1000,100] :: row_sqrt/" + form, 1000, [=](int64_t count) {
                      Tensor out = zeros({count, 100}, TensorOptions(input.scalar_type())
                                                           .device(sample::device()));
                      f(input.narrow(0, 0, count), out);
                      return out;
                    }});
  };
  add("free_function", free_function, x);
  add("pow_half", pow_half, x);
  add("element_loop_item", element_loop_item, x);
  add("nested_vmap", nested_vmap, x);
  add("copy_into_slot", copy_into_slot, x);
  add("through_a_helper", through_a_helper, x);
  add("through_a_lambda", through_a_lambda, x);
  add("RowRoots::into", member_function, x);
  add("free_function (float64)", free_function, x.to(kDouble));
  return list;
}
static const sample::Registration registration(cases);
