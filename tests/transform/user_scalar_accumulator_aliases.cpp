// A C++ scalar the loop reduces into, reached under another name (issue 31): a reference
// parameter the caller binds to the accumulator itself, a global a same-file helper reads,
// a member of the object. As written each example reads the sum so far; batched, every
// example would read the value before the loop. The guard compares the addresses and runs
// the loop as written when the two names are one variable (main() binds them so), and so
// it does when a scalar reference is bound into a tensor the loop reaches; a helper that
// reads the accumulator by its own name is refused (errors/callee_reads_output.cpp).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void scaled_sum(const Tensor& x, double& acc, const double& scale) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += x[i].item<double>() * scale;
}
// CHECK-LABEL: void scaled_sum(
// CHECK-NEXT: if (static_cast<const void *>(&acc) == static_cast<const void *>(&scale) ||
// CHECK-NEXT: ::vmap::batched::any_overlap(x, ::vmap::from_blob(const_cast<void *>(static_cast<const void *>(&acc)), {static_cast<int64_t>(sizeof(acc))}, ::vmap::kBool))) { // clang-vmap: inputs may overlap outputs, run as written

double g_bias = 0;
double biased(double v) { return v + g_bias; }

void biased_sum(const Tensor& x, double& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += biased(x[i].item<double>());
}
// CHECK-LABEL: void biased_sum(
// CHECK-NEXT: if (static_cast<const void *>(&acc) == static_cast<const void *>(&::g_bias) ||

// A member read through a const reference may still be the caller's accumulator.
struct Config {
  double scale = 2;
};

void configured_sum(const Tensor& x, double& acc, const Config& config) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += x[i].item<double>() * config.scale;
}
// CHECK-LABEL: void configured_sum(
// CHECK-NEXT: if (static_cast<const void *>(&acc) == static_cast<const void *>(&config.scale) ||

struct Stats {
  float best_ = -100;
  float floor_ = 0;
  void track(const Tensor& x, const float& limit) {
#pragma vmap
    for (int64_t i = 0; i < x.size(0); ++i)
      best_ = std::max(best_, x[i].item<float>() - limit + floor_);
  }
};
// Two fields of one object are two variables: only the reference is checked.
// CHECK-LABEL: void track(
// CHECK-NEXT: if (static_cast<const void *>(&this->best_) == static_cast<const void *>(&limit)) { // clang-vmap

// A const variable is no accumulator: nothing to check against it (and `&Limits::kFactor`
// would not link, the member having no definition outside its class).
struct Limits {
  static const int kFactor = 3;
};

void factor_sum(const Tensor& x, double& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += x[i].item<double>() * Limits::kFactor;
}
// CHECK-LABEL: void factor_sum(
// CHECK-NEXT: if (::vmap::batched::any_overlap(x, ::vmap::from_blob(const_cast<void *>(static_cast<const void *>(&acc)), {static_cast<int64_t>(sizeof(acc))}, ::vmap::kBool))) { // clang-vmap

// A scalar reference bound to an element of a tensor: the accumulator one inside a tensor
// the loop reads, the read one inside the output. Each is checked against the tensors by
// its bytes.
void scaled_by_total(const Tensor& x, float& s, const Tensor& t) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    s += x[i].item<float>() * t.sum().item<float>();
}
// CHECK-LABEL: void scaled_by_total(
// CHECK-NEXT: if (::vmap::batched::any_overlap(x, {{.*}}(&s)), {{.*}} ||
// CHECK-NEXT: ::vmap::batched::any_overlap(t, {{.*}}(&s)), {static_cast<int64_t>(sizeof(s))}, ::vmap::kBool))) { // clang-vmap

void scale_rows(const Tensor& x, Tensor& out, const float& scale) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] * scale;
}
// CHECK-LABEL: void scale_rows(
// CHECK: ::vmap::batched::any_overlap(out, ::vmap::from_blob(const_cast<void *>(static_cast<const void *>(&scale)), {static_cast<int64_t>(sizeof(scale))}, ::vmap::kBool))) { // clang-vmap

double g_total = 0;

void global_sum(const Tensor& x) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    g_total += x[i].item<double>() * g_bias;
}
// Two globals are two variables: nothing to check.
// CHECK-LABEL: void global_sum(
// CHECK-NOT: static_cast<const void *>
// CHECK: namespace vb = ::vmap::batched;

int main() {
  Tensor x = arange(4).to(kDouble) + 1;
  double acc = 1;
  scaled_sum(x, acc, acc);  // as written: 1+1=2, 2+4=6, 6+18=24, 24+96=120
  std::cout << acc << "\n";
  double other = 1, scale = 2;
  scaled_sum(x, other, scale);  // distinct: batched, 1 + 2 * 10
  std::cout << other << "\n";

  g_bias = 1;
  biased_sum(x, g_bias);  // as written: 1+1+1=3, 3+2+3=8, ...
  std::cout << g_bias << "\n";
  g_bias = 0.5;
  double sum = 0;
  biased_sum(x, sum);
  std::cout << sum << "\n";

  Config config;
  configured_sum(x, config.scale, config);  // as written 2+2=4, 4+8=12, ...: 240
  std::cout << config.scale << "\n";

  Stats stats;
  stats.track(x.to(kFloat), stats.best_);  // the limit is the running maximum itself
  std::cout << stats.best_ << "\n";
  Stats fresh;
  fresh.track(x.to(kFloat), 1.5f);
  std::cout << fresh.best_ << "\n";

  double factored = 1;
  factor_sum(x, factored);
  std::cout << factored << "\n";

  Tensor totals = ones({2});
  float& first = *totals.data_ptr<float>();
  scaled_by_total(arange(3).to(kFloat) + 1, first, totals);  // as written 47
  std::cout << totals << "\n";
  Tensor rows = ones({3});
  scale_rows(arange(3).to(kFloat) + 2, rows, *rows.data_ptr<float>());  // as written 2, 6, 8
  std::cout << rows << "\n";

  g_total = 0;
  g_bias = 2;
  global_sum(x);
  std::cout << g_total << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
