// Ported from ISPC's options example: Black-Scholes call and put prices, one option per
// example, with exp / log / sqrt and the normal CDF through erf; and a binomial-free
// per-option payoff with a per-example branch.
#include <vmap/vmap.hpp>
#include <cmath>
#include <iostream>
using namespace vmap;

float cnd(float x) { return 0.5f * (1.0f + std::erf(x / std::sqrt(2.0f))); }

void black_scholes(const Tensor& spot, const Tensor& strike, const Tensor& years, float rate,
                   float vol, Tensor& calls, Tensor& puts) {
#pragma vmap
  for (int64_t i = 0; i < spot.size(0); ++i) {
    float S = spot[i].item<float>();
    float X = strike[i].item<float>();
    float T = years[i].item<float>();
    float d1 = (std::log(S / X) + (rate + 0.5f * vol * vol) * T) / (vol * std::sqrt(T));
    float d2 = d1 - vol * std::sqrt(T);
    float discounted = X * std::exp(-rate * T);
    calls[i] = S * cnd(d1) - discounted * cnd(d2);
    puts[i] = discounted * cnd(-d2) - S * cnd(-d1);
  }
}
// CHECK-LABEL: void black_scholes(
// CHECK: vb::log(S / X)

void payoffs(const Tensor& paths, const Tensor& strike, Tensor& out) {
#pragma vmap
  for (int64_t i = 0; i < paths.size(0); ++i) {
    Tensor average = paths[i].mean();
    Tensor gain = average - strike[i];
    if (gain.item<float>() > 0)
      out[i] = gain * exp(-0.05f);
    else
      out[i] = zeros({});
  }
}

int main() {
  Tensor spot = 80 + arange(6).to(kFloat) * 8;
  Tensor strike = 100 - arange(6).to(kFloat) * 3;
  Tensor years = 0.25 + arange(6).to(kFloat) * 0.3;
  Tensor calls = zeros({6}), puts = zeros({6});
  black_scholes(spot, strike, years, 0.02f, 0.3f, calls, puts);
  Tensor paths = 90 + (arange(6 * 10).reshape({6, 10}).to(kFloat) * 0.7).sin() * 20;
  Tensor out = zeros({6});
  payoffs(paths, strike, out);
  std::cout << calls << "\n" << puts << "\n" << out << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
