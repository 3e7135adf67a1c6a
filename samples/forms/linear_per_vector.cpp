// Forms of samples/linear_per_vector.cpp (`out[i] = linear(x[i], weight, bias)`) a user
// writes first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// out[i] = weight.matmul(x[i]) + bias;
void matmul_plus_bias(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = weight.matmul(x[i]) + bias;
}

// out[i] = x[i].matmul(weight.t()) + bias;
void row_times_transpose(const Tensor& x, const Tensor& weight, const Tensor& bias,
                         Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i].matmul(weight.t()) + bias;
}

void mv_plus_bias(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = mv(weight, x[i]) + bias;
}

// One dot product per output, in a plain inner loop.
void inner_dot_loop(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t o = 0; o < weight.size(0); ++o)
      out[i][o] = weight[o].dot(x[i]) + bias[o];
}

// (weight[o] * x[i]).sum() per output, in a plain inner loop.
void inner_sum_of_products_loop(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t o = 0; o < weight.size(0); ++o)
      out[i][o] = (weight[o] * x[i]).sum() + bias[o];
}

Tensor dense(const Tensor& v, const Tensor& w, const Tensor& b) {
  Tensor y = linear(v, w, b);
  return y;
}

void through_a_helper(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = dense(x[i], weight, bias);
}

struct Layer {
  Tensor weight, bias;
  void forward(const Tensor& x, Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      out[i] = linear(x[i], weight, bias);
  }
};

void member_function(const Tensor& x, const Tensor& weight, const Tensor& bias, Tensor& out) {
  Layer{weight, bias}.forward(x, out);
}

}  // namespace

static sample::CaseList cases() {
  manual_seed(2);
  const Tensor x = randn({10000, 256}).to(sample::device());
  const Tensor weight = (randn({256, 256}) / 16.0).to(sample::device());
  const Tensor bias = randn({256}).to(sample::device());
  const Tensor x64 = x.to(kDouble), weight64 = weight.to(kDouble), bias64 = bias.to(kDouble);
  using Form = void (*)(const Tensor&, const Tensor&, const Tensor&, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f, const Tensor& v, const Tensor& w,
                       const Tensor& b) {
    list.push_back({"Linear per vector, W 256x256, 10,000 vectors :: linear_per_vector/" + form,
                    10000,
                    [=](int64_t count) {
                      Tensor out = zeros({count, 256}, TensorOptions(v.scalar_type())
                                                           .device(sample::device()));
                      f(v.narrow(0, 0, count), w, b, out);
                      return out;
                    }});
  };
  add("matmul_plus_bias", matmul_plus_bias, x, weight, bias);
  add("row_times_transpose", row_times_transpose, x, weight, bias);
  add("mv_plus_bias", mv_plus_bias, x, weight, bias);
  add("inner_dot_loop", inner_dot_loop, x, weight, bias);
  add("inner_sum_of_products_loop", inner_sum_of_products_loop, x, weight, bias);
  add("through_a_helper", through_a_helper, x, weight, bias);
  add("Layer::forward", member_function, x, weight, bias);
  add("through_a_helper (float64)", through_a_helper, x64, weight64, bias64);
  return list;
}
static const sample::Registration registration(cases);
