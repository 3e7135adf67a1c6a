// Forms of samples/pairwise_distance.cpp (the Euclidean distance of every x_i and y_j) a
// user writes first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include <cmath>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// out[i][j] = (x[i] - y[j]).norm();
void norm(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      out[i][j] = (x[i] - y[j]).norm();
}

// out[i][j] = sqrt((x[i] - y[j]).pow(2).sum());
void pow_sum_sqrt(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      out[i][j] = sqrt((x[i] - y[j]).pow(2).sum());
}

// A plain inner loop over the coordinates, on .item<float>() scalars.
void coordinate_loop_item(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      float total = 0.0f;
      for (int64_t k = 0; k < x.size(1); ++k) {
        float d = x[i][k].item<float>() - y[j][k].item<float>();
        total += d * d;
      }
      out[i][j] = std::sqrt(total);
    }
}

// One vmap over i; the pairs of a row in a plain inner loop.
void plain_inner_loop(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor difference = x[i] - y[j];
      out[i][j] = (difference * difference).sum().sqrt();
    }
}

Tensor distance(const Tensor& a, const Tensor& b) {
  Tensor d = a - b;
  return d.dot(d).sqrt();
}

void through_a_helper(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      out[i][j] = distance(x[i], y[j]);
}

// |x|^2 - 2 x.y + |y|^2, through dot products.
void expanded_dots(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j)
      out[i][j] = (x[i].dot(x[i]) - 2 * x[i].dot(y[j]) + y[j].dot(y[j])).sqrt();
}

template <typename T>
void item_of_sum(const Tensor& x, const Tensor& y, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
#pragma vmap
    for (int64_t j = 0; j < y.size(0); ++j) {
      Tensor difference = x[i] - y[j];
      T squared = (difference * difference).sum().item<T>();
      out[i][j] = std::sqrt(squared);
    }
}

sample::Case form_of(const std::string& form, void (*f)(const Tensor&, const Tensor&, Tensor&),
                     const Tensor& x, const Tensor& y) {
  const int64_t n = x.size(0), m = y.size(0), width = x.size(1);
  return {"pairwise_distance " + std::to_string(n) + "x" + std::to_string(m) + "x" +
              std::to_string(width) + " :: pairwise_distance/" + form,
          n, [=](int64_t count) {
            Tensor out =
                zeros({count, m}, TensorOptions(x.scalar_type()).device(sample::device()));
            f(x.narrow(0, 0, count), y, out);
            return out;
          }};
}

}  // namespace

static sample::CaseList cases() {
  manual_seed(4);
  sample::CaseList list;
  for (const auto& [n, m, width] : {std::tuple<int64_t, int64_t, int64_t>{100, 200, 10},
                                   std::tuple<int64_t, int64_t, int64_t>{2000, 2000, 64}}) {
    const Tensor x = randn({n, width}).to(sample::device());
    const Tensor y = randn({m, width}).to(sample::device());
    list.push_back(form_of("norm", norm, x, y));
    list.push_back(form_of("pow_sum_sqrt", pow_sum_sqrt, x, y));
    list.push_back(form_of("coordinate_loop_item", coordinate_loop_item, x, y));
    list.push_back(form_of("plain_inner_loop", plain_inner_loop, x, y));
    list.push_back(form_of("through_a_helper", through_a_helper, x, y));
    list.push_back(form_of("expanded_dots", expanded_dots, x, y));
    list.push_back(form_of("item_of_sum<float>", item_of_sum<float>, x, y));
    list.push_back(form_of("norm (float64)", norm, x.to(kDouble), y.to(kDouble)));
  }
  return list;
}
static const sample::Registration registration(cases);
