// SPEC section 6's runtime ops per example, as members and free functions: rounding and
// float math; remainder / fmod / floor_divide / atan2 / hypot / clamp_min / clamp_max with
// per-example, loop-invariant and C++ number operands (float and int tensors); logsumexp,
// var, std, norm with dim lists; cumsum / cumprod; masked_fill with a per-example mask and a
// per-example C++ value; lerp with a per-example weight. None of them may run per example.
#include <vmap/vmap.hpp>
#include <iostream>
using namespace vmap;

void v2_ops(const Tensor& x, const Tensor& y, const Tensor& bias, const Tensor& k,
            const Tensor& weights, Tensor& rounded, Tensor& maths, Tensor& divisions,
            Tensor& ints, Tensor& stats, Tensor& whole, Tensor& scans, Tensor& masked) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    Tensor scaled = x[i] * 3.7;
    rounded[i] = scaled.floor() + ceil(scaled) + scaled.round() + trunc(scaled) + frac(scaled);
    maths[i] = x[i].abs().rsqrt() + reciprocal(x[i] + 3) + x[i].square() + log1p(x[i].abs()) +
               x[i].expm1() + log2(x[i].abs() + 1) + exp2(x[i]) + x[i].erf() + erfc(x[i]) +
               silu(x[i]);
    divisions[i] = remainder(scaled, bias) + scaled.fmod(2.5) + floor_divide(scaled, y[i] + 3) +
                   atan2(x[i], y[i]) + x[i].hypot(bias) + x[i].clamp_min(-0.5).clamp_max(y[i]);
    ints[i] = remainder(k[i], 3) + k[i].floor_divide(-2) + fmod(k[i], k[i].abs() + 1) +
              k[i].clamp_max(4);
    float w = weights[i].item<float>();
    stats[i] = x[i].logsumexp({0}) + var(x[i], {0}, true) + x[i].std({0}, false) +
               norm(x[i], 3, {0}) + x[i].unsqueeze(0).var({1}, true, true).sum();
    whole[i] = x[i].var() + x[i].std(false) + x[i].norm() + norm(y[i], 1) + var(y[i], false);
    scans[i] = x[i].cumsum(0) + cumprod(y[i] * 0.5 + 1, 0);
    masked[i] = x[i].masked_fill(x[i] > y[i], w).lerp(y[i], w) + lerp(x[i], bias, 0.25) +
                masked_fill(y[i], bias < 0, 0.5);
  }
}
// CHECK-LABEL: void v2_ops(
// CHECK: vb::Level _b_level0(0, x.size(0));  // line 14
// CHECK: vb::at(rounded, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& scaled) { return scaled.floor() + vb::ceil(scaled) + scaled.round() + vb::trunc(scaled) + vb::frac(scaled); }, scaled);  // line 16
// CHECK: vb::at(maths, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return a.abs().rsqrt() + vb::reciprocal(a + 3) + a.square() + vb::log1p(a.abs()) +
// CHECK: vb::at(divisions, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& scaled, const auto& bias, const auto& a, const auto& b) { return vb::remainder(scaled, bias) + scaled.fmod(2.5) + vb::floor_divide(scaled, a + 3) +
// CHECK: vb::at(ints, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a) { return vb::remainder(a, 3) + a.floor_divide(-2) + vb::fmod(a, a.abs() + 1) +
// CHECK: vb::Value w = vb::at(weights, i).item<float>();  // line 24
// CHECK: vb::at(stats, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d, const auto& e) { return a + b + c +
// CHECK: vb::at(whole, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d, const auto& e) { return a + b + c + d + e; }, vb::at(x, i).var(), vb::at(x, i).std(false), vb::at(x, i).norm(), vb::norm(vb::at(y, i), 1), vb::var(vb::at(y, i), false));  // line 27
// CHECK: vb::at(scans, i) = vb::at(x, i).cumsum(0) + vb::cumprod(vb::at(y, i) * 0.5 + 1, 0);  // line 28
// CHECK: vb::at(masked, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c) { return a + b +

// gelu (both approximations) and softplus (defaults, beta and threshold); div with each
// rounding mode on float and int tensors, member and free, tensor and number divisors; `%`
// on tensors (LibTorch's remainder) with tensor, number and per-example C++ integer operands.
void v2_more(const Tensor& x, const Tensor& y, const Tensor& k, Tensor& activations,
             Tensor& quotients, Tensor& int_quotients, Tensor& percents) {
#pragma vmap
  for (int64_t i = 0; i < x.size(0); ++i) {
    activations[i] = gelu(x[i]) + gelu(x[i] * 2, "tanh") + softplus(x[i]) + softplus(y[i], 2, 1);
    quotients[i] = div(x[i] * 5, y[i], "trunc") + x[i].div(y[i] + 3, "floor") +
                   div(x[i], 0.3, std::nullopt) + (x[i] * 7).div(2, "trunc");
    int64_t m = i + 2;
    int_quotients[i] = div(k[i], 4, "trunc") + k[i].div(k[i].abs() + 1, "floor") + k[i] % 5 +
                       k[i] % m + 7 % (k[i].abs() + 1);
    percents[i] = x[i] * 7 % 2.5 + y[i] % x[i] + x[i] % y[i].abs();
  }
}
// CHECK-LABEL: void v2_more(
// CHECK: vb::at(activations, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d) { return a + b + c + d; }, vb::gelu(vb::at(x, i)), vb::gelu(vb::at(x, i) * 2, "tanh"), vb::softplus(vb::at(x, i)), vb::softplus(vb::at(y, i), 2, 1));  // line 52
// CHECK: vb::at(quotients, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d) { return a + b +
// CHECK: vb::at(int_quotients, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c, const auto& d, const auto& e) { return a + b + c +
// CHECK: vb::at(percents, i) = vb::fused(vb::DeviceCode{{[{]}}"{{.*}}"}, [](const auto& a, const auto& b, const auto& c) { return a + b + c; }, vb::at(x, i) * 7 % 2.5, vb::at(y, i) % vb::at(x, i), vb::at(x, i) % vb::at(y, i).abs());  // line 58
// CHECK-NOT: per_example

int main() {
  const int64_t n = 5;
  Tensor x = (arange(n * 6).reshape({n, 6}).to(kFloat) * 0.37).sin();
  Tensor y = (arange(n * 6).reshape({n, 6}).to(kFloat) * 0.61).cos() * 2.0;
  Tensor bias = (arange(6).to(kFloat) * 0.7).cos() - 1.5;
  Tensor k = (arange(n * 6).reshape({n, 6}) - 13).to(kInt);
  Tensor weights = arange(n).to(kFloat) * 0.2;
  Tensor rounded = zeros({n, 6}), maths = zeros({n, 6}), divisions = zeros({n, 6});
  Tensor ints = zeros({n, 6}, kInt), stats = zeros({n}), scans = zeros({n, 6});
  Tensor masked = zeros({n, 6}), whole = zeros({n});
  v2_ops(x, y, bias, k, weights, rounded, maths, divisions, ints, stats, whole, scans, masked);
  Tensor activations = zeros({n, 6}), quotients = zeros({n, 6}), percents = zeros({n, 6});
  Tensor int_quotients = zeros({n, 6}, kInt);
  v2_more(x, y, k, activations, quotients, int_quotients, percents);
  std::cout << activations << "\n" << quotients << "\n" << int_quotients << "\n" << percents
            << "\n";
  std::cout << rounded << "\n" << maths << "\n" << divisions << "\n" << ints << "\n"
            << stats << "\n" << whole << "\n" << scans << "\n" << masked << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
