// Forms of samples/square_five_times.cpp (`value = value * value` five times per element) a
// user writes first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// out[i] = x[i].pow(32);
void pow_32(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].pow(32);
}

Tensor squared(const Tensor& v) { return v * v; }

void through_a_helper(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor value = x[i];
    for (int round = 0; round < 5; ++round)
      value = squared(value);
    out[i] = value;
  }
}

// In place in the output: out[i] = x[i]; then out[i] = out[i] * out[i] five times.
void in_place_in_output(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i];
    for (int round = 0; round < 5; ++round)
      out[i] = out[i] * out[i];
  }
}

// out[i] = x[i]; then out[i] *= out[i] five times.
void compound_in_output(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    out[i] = x[i];
    for (int round = 0; round < 5; ++round)
      out[i] *= out[i];
  }
}

void item_scalar(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    float value = x[i].item<float>();
    for (int round = 0; round < 5; ++round)
      value = value * value;
    out[i] = value;
  }
}

// Unrolled by hand: x2 = x*x, x4 = x2*x2, ...
void unrolled(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor x2 = x[i] * x[i];
    Tensor x4 = x2 * x2;
    Tensor x8 = x4 * x4;
    Tensor x16 = x8 * x8;
    out[i] = x16 * x16;
  }
}

void square_method(const Tensor& x, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor value = x[i];
    for (int round = 0; round < 5; ++round)
      value = value.square();
    out[i] = value;
  }
}

}  // namespace

static sample::CaseList cases() {
  manual_seed(7);
  const int64_t n = 1000000;
  const Tensor x = (rand({n}) * 0.2 + 0.9).to(sample::device());
  using Form = void (*)(const Tensor&, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f, const Tensor& input) {
    list.push_back({"x = x*x five times, 1e6 :: square_five_times/" + form, n, [=](int64_t count) {
                      Tensor out = zeros({count}, TensorOptions(input.scalar_type())
                                                      .device(sample::device()));
                      f(input.narrow(0, 0, count), out);
                      return out;
                    }});
  };
  add("pow_32", pow_32, x);
  add("through_a_helper", through_a_helper, x);
  add("in_place_in_output", in_place_in_output, x);
  add("compound_in_output", compound_in_output, x);
  add("item_scalar", item_scalar, x);
  add("unrolled", unrolled, x);
  add("square_method", square_method, x);
  add("unrolled (float64)", unrolled, x.to(kDouble));
  return list;
}
static const sample::Registration registration(cases);
