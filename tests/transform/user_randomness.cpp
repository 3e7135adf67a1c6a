// Randomness in the body, opt-in (SPEC section 7): `#pragma vmap randomness(different)`
// draws each example's own numbers as one batch, `randomness(same)` one draw shared by all.
// The batched draws are not the loop's as written (that runs one shared sequence), so main()
// prints what holds for both builds: moments within tolerances, ranges, independence across
// examples. That `same` gives every example the one sample is in the CHECK lines (the draw
// is made once) and in tests/rules/batched_random_test.cpp.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

// Noise injection: each row its own normal draw.
void add_noise(const Tensor& x, float sigma, Tensor& out) {
#pragma vmap randomness(different)
  for (int64_t i = 0; i < x.size(0); ++i)
    out[i] = x[i] + randn({x.size(1)}) * sigma;
}
// CHECK-LABEL: void add_noise(
// CHECK:      namespace vb = ::vmap::batched;
// CHECK-NEXT: vb::RandomDraws _b_randomness(vb::Randomness::different);
// CHECK:      vb::at(out, i) = vb::fused({{.*}}, vb::at(x, i), vb::randn({x.size(1)}), sigma);

// Dropout: a mask drawn from each example's keep probability (a per-example argument).
void dropout_rows(const Tensor& x, const Tensor& keep, Tensor& out) {
#pragma vmap randomness(different)
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor mask = bernoulli(full_like(x[i], keep[i].item<float>()));
    out[i] = x[i] * mask / keep[i];
  }
}
// CHECK-LABEL: void dropout_rows(
// CHECK: vb::Value mask = vb::bernoulli(vb::full_like(vb::at(x, i), vb::at(keep, i).item<float>()));

// Integer draws, and a draw in a helper: its clone draws as the loop that calls it says.
Tensor jitter(const Tensor& row, double scale) { return row + randn_like(row) * scale; }

void shuffle_and_jitter(const Tensor& x, Tensor& picks, Tensor& out) {
#pragma vmap randomness(different)
  for (int64_t i = 0; i < x.size(0); ++i) {
    picks[i] = randint(0, 10, {picks.size(1)});
    out[i] = jitter(x[i], 0.5);
  }
}
// CHECK-LABEL: static ::vmap::batched::Value _b_jitter(const ::vmap::batched::Value& row, double scale) {
// CHECK:        return row + vb::randn_like(row) * scale;
// CHECK-LABEL: void shuffle_and_jitter(
// CHECK: vb::at(picks, i) = vb::randint(0, 10, {picks.size(1)});
// CHECK: vb::at(out, i) = _b_jitter(vb::at(x, i), 0.5);

// One draw shared by every example: without a per-example argument the draw stays as
// written (made once, before any example reads it); with one, vb:: draws one sample of the
// per-example shape.
void shared_offsets(const Tensor& x, Tensor& shifted, Tensor& scaled) {
#pragma vmap randomness(same)
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor offset = randn({x.size(1)});
    shifted[i] = x[i] + offset;
    scaled[i] = x[i] * rand_like(x[i]);
  }
}
// CHECK-LABEL: void shared_offsets(
// CHECK:      vb::RandomDraws _b_randomness(vb::Randomness::same);
// CHECK:      Tensor offset = randn({x.size(1)});
// CHECK:      vb::at(scaled, i) = vb::at(x, i) * vb::rand_like(vb::at(x, i));

// 1 when |a - b| <= tolerance, for printing facts both builds share.
int near(double a, double b, double tolerance) { return std::abs(a - b) <= tolerance ? 1 : 0; }

// Rows that equal the next one, and the largest |correlation| of neighbouring rows.
void print_independence(const char* what, const Tensor& rows) {
  int64_t equal_neighbours = 0;
  double largest = 0;
  for (int64_t r = 0; r + 1 < rows.size(0); ++r) {
    const Tensor a = rows[r].to(kFloat64) - rows[r].to(kFloat64).mean();
    const Tensor b = rows[r + 1].to(kFloat64) - rows[r + 1].to(kFloat64).mean();
    equal_neighbours += equal(rows[r], rows[r + 1]) ? 1 : 0;
    const double c = (a * b).sum().item<double>() /
                     std::sqrt((a * a).sum().item<double>() * (b * b).sum().item<double>());
    largest = std::max(largest, std::abs(c));
  }
  std::cout << what << ": equal neighbours " << equal_neighbours << ", uncorrelated "
            << (largest < 0.2 ? 1 : 0) << "\n";
}

int main() {
  manual_seed(0);
  const int64_t batch = 64, n = 2000;
  const Tensor x = zeros({batch, n});
  Tensor noisy = zeros({batch, n});
  add_noise(x, 2.0f, noisy);
  std::cout << "noise: mean ~0 " << near(noisy.mean().item<double>(), 0, 0.02)
            << ", variance ~4 " << near(noisy.var().item<double>(), 4, 0.08) << "\n";
  print_independence("noise", noisy);

  const Tensor ones_x = ones({batch, n});
  Tensor keep = full({batch}, 0.8f);
  keep[0] = 1.0f;  // row 0 keeps everything
  Tensor dropped = zeros({batch, n});
  dropout_rows(ones_x, keep, dropped);
  const Tensor kept = dropped.ne(0).to(kFloat64);
  std::cout << "dropout: row 0 whole " << kept[0].all().item<bool>() << ", kept ~0.8 "
            << near(kept.narrow(0, 1, batch - 1).mean().item<double>(), 0.8, 0.01)
            << ", kept scaled by 1/0.8 "
            << dropped.narrow(0, 1, batch - 1).eq(0).logical_or(
                   dropped.narrow(0, 1, batch - 1).sub(1.25f).abs().lt(1e-6f)).all().item<bool>()
            << "\n";
  print_independence("dropout", dropped.narrow(0, 1, batch - 1));

  Tensor picks = zeros({batch, n}, kInt64), jittered = zeros({batch, n});
  shuffle_and_jitter(x, picks, jittered);
  std::cout << "randint: in [0, 10) " << (picks.ge(0).all().item<bool>() && picks.lt(10).all().item<bool>())
            << ", mean ~4.5 " << near(picks.to(kFloat64).mean().item<double>(), 4.5, 0.05) << "\n";
  std::cout << "jitter: variance ~0.25 " << near(jittered.var().item<double>(), 0.25, 0.01) << "\n";
  print_independence("jitter", jittered);

  Tensor shifted = zeros({batch, n}), scaled = zeros({batch, n});
  shared_offsets(ones_x, shifted, scaled);
  std::cout << "same: offsets normal " << near((shifted - 1).mean().item<double>(), 0, 0.1)
            << near((shifted - 1).var().item<double>(), 1, 0.15) << ", uniform in [0, 1) "
            << (scaled.ge(0).all().item<bool>() && scaled.lt(1).all().item<bool>())
            << near(scaled.mean().item<double>(), 0.5, 0.03) << "\n";
}

// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
