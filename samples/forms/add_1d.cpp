// Forms of samples/add_1d.cpp (`out[i] = a[i] + b[i]`) a user writes first: Note [Forms of
// the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// Tensor sum = a[i] + b[i]; out[i] = sum;
void through_a_local(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    Tensor sum = a[i] + b[i];
    out[i] = sum;
  }
}

Tensor plus(const Tensor& x, const Tensor& y) { return x + y; }

void through_a_helper(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
    out[i] = plus(a[i], b[i]);
}

// float sum = a[i].item<float>() + b[i].item<float>(); out[i] = sum;
void item_scalars(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    float sum = a[i].item<float>() + b[i].item<float>();
    out[i] = sum;
  }
}

// out[i] = a[i]; out[i] += b[i];
void copy_then_add_in_place(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i) {
    out[i] = a[i];
    out[i] += b[i];
  }
}

// out[i].copy_(a[i].add(b[i]));
void method_call_copy(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
    out[i].copy_(a[i].add(b[i]));
}

// out[i] = a[i].item<T>() + b[i].item<T>(); in a function template
template <typename T>
void in_a_template(const Tensor& a, const Tensor& b, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < a.size(0); ++i)
    out[i] = a[i].item<T>() + b[i].item<T>();
}

struct Adder {
  Tensor a, b;
  void run(Tensor& out) const {
#pragma vmap
    for (int64_t i = 0; i < a.size(0); ++i)
      out[i] = a[i] + b[i];
  }
};

}  // namespace

static sample::CaseList cases() {
  manual_seed(5);
  const int64_t n = 1000000;
  const Tensor a = randn({n}).to(sample::device());
  const Tensor b = randn({n}).to(sample::device());
  const Tensor a64 = a.to(kDouble), b64 = b.to(kDouble);
  using Form = void (*)(const Tensor&, const Tensor&, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f, const Tensor& x, const Tensor& y) {
    list.push_back({"add_1d 1e6 :: add_1d/" + form, n, [=](int64_t count) {
                      Tensor out = zeros({count}, TensorOptions(x.scalar_type())
                                                      .device(sample::device()));
                      f(x.narrow(0, 0, count), y.narrow(0, 0, count), out);
                      return out;
                    }});
  };
  add("through_a_local", through_a_local, a, b);
  add("through_a_helper", through_a_helper, a, b);
  add("item_scalars", item_scalars, a, b);
  add("copy_then_add_in_place", copy_then_add_in_place, a, b);
  add("method_call_copy", method_call_copy, a, b);
  add("in_a_template<float>", in_a_template<float>, a, b);
  add("through_a_local (float64)", through_a_local, a64, b64);
  add("Adder::run", [](const Tensor& x, const Tensor& y, Tensor& out) {
    Adder{x, y}.run(out);
  }, a, b);
  return list;
}
static const sample::Registration registration(cases);
