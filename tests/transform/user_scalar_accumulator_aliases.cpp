// A C++ scalar the loop reduces into, reached under another name (issue 31): a reference
// parameter the caller binds to the accumulator itself, a global a same-file helper reads,
// a member of the object. As written each example reads the sum so far; batched, every
// example would read the value before the loop. The guard compares the addresses and runs
// the loop as written when the two names are one variable (main() binds them so); a
// helper that reads the accumulator by its own name is refused (errors/callee_reads_output.cpp).
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void scaled_sum(const Tensor& x, double& acc, const double& scale) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += x[i].item<double>() * scale;
}
// CHECK-LABEL: void scaled_sum(
// CHECK-NEXT: if (static_cast<const void *>(&acc) == static_cast<const void *>(&scale)) { // clang-vmap: inputs may overlap outputs, run as written

double g_bias = 0;
double biased(double v) { return v + g_bias; }

void biased_sum(const Tensor& x, double& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += biased(x[i].item<double>());
}
// CHECK-LABEL: void biased_sum(
// CHECK-NEXT: if (static_cast<const void *>(&acc) == static_cast<const void *>(&::g_bias)) {

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

// A const variable is no accumulator: nothing to check (and `&Limits::kFactor` would not
// link, the member having no definition outside its class).
struct Limits {
  static const int kFactor = 3;
};

void factor_sum(const Tensor& x, double& acc) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i)
    acc += x[i].item<double>() * Limits::kFactor;
}
// CHECK-LABEL: void factor_sum(
// CHECK-NOT: static_cast<const void *>
// CHECK: namespace vb = ::vmap::batched;

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

  Stats stats;
  stats.track(x.to(kFloat), stats.best_);  // the limit is the running maximum itself
  std::cout << stats.best_ << "\n";
  Stats fresh;
  fresh.track(x.to(kFloat), 1.5f);
  std::cout << fresh.best_ << "\n";

  double factored = 1;
  factor_sum(x, factored);
  std::cout << factored << "\n";

  g_total = 0;
  g_bias = 2;
  global_sum(x);
  std::cout << g_total << "\n";
}
