// Forms of samples/triangular_mask.cpp (`mask[i][j] = j >= i`) a user writes first: Note
// [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// if (j >= i) mask[i][j] = true; (the mask starts all false)
void if_store(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < mask.size(1); ++j)
      if (j >= i)
        mask[i][j] = true;
}

// A float mask: mask[i][j] = static_cast<float>(j >= i);
void static_cast_float(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < mask.size(1); ++j)
      mask[i][j] = static_cast<float>(j >= i);
}

// A float mask: mask[i][j] = j >= i ? 1.0f : 0.0f;
void ternary_float(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < mask.size(1); ++j)
      mask[i][j] = j >= i ? 1.0f : 0.0f;
}

// One vmap over the rows; the columns in a plain inner loop.
void plain_inner_loop(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
    for (int64_t j = 0; j < mask.size(1); ++j)
      mask[i][j] = j >= i;
}

// A whole row at once against a column index: mask[i] = columns >= i;
void row_against_columns(Tensor& mask) {
  const Tensor columns = arange(mask.size(1));
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
    mask[i] = columns >= i;
}

// A lambda holding the loop: mask[i][j] = !(j < i);
void loop_in_a_lambda(Tensor& mask) {
  const auto fill = [](Tensor& m) {
#pragma vmap
    for (int64_t i = 0; i < m.size(0); ++i)
#pragma vmap
      for (int64_t j = 0; j < m.size(1); ++j)
        m[i][j] = !(j < i);
  };
  fill(mask);
}

// An int32 mask, through a local: int on = j >= i ? 1 : 0; mask[i][j] = on;
void int_local(Tensor& mask) {
#pragma vmap
  for (int64_t i = 0; i < mask.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < mask.size(1); ++j) {
      int on = j >= i ? 1 : 0;
      mask[i][j] = on;
    }
}

}  // namespace

static sample::CaseList cases() {
  const int64_t n = 1024;
  using Form = void (*)(Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f, Dtype dtype) {
    list.push_back({"upper-triangular mask 1024 :: triangular_mask/" + form, n, [=](int64_t count) {
                      Tensor mask =
                          zeros({count, n}, TensorOptions(dtype).device(sample::device()));
                      f(mask);
                      return mask;
                    }});
  };
  add("if_store", if_store, kBool);
  add("static_cast_float", static_cast_float, kFloat);
  add("ternary_float", ternary_float, kFloat);
  add("plain_inner_loop", plain_inner_loop, kBool);
  add("row_against_columns", row_against_columns, kBool);
  add("loop_in_a_lambda", loop_in_a_lambda, kBool);
  add("int_local", int_local, kInt32);
  return list;
}
static const sample::Registration registration(cases);
