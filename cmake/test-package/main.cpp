#include <tiny/model.hpp>

#include <cstdio>

int main() {
  const vmap::Tensor x = vmap::arange(6).reshape({3, 2}).to(vmap::kFloat32);
  vmap::Tensor out = vmap::zeros({3, 2});
  tiny::scale_rows(x, out);
  for (int64_t k = 0; k < 6; ++k) {
    const float expected = static_cast<float>(k) * 2 + 0.5f;
    if (out.reshape({6})[k].item<float>() != expected) {
      std::printf("element %lld: expected %g\n", static_cast<long long>(k), expected);
      return 1;
    }
  }
  vmap::Tensor flagged = vmap::zeros({3, 2});
  const int64_t release = tiny::flag_rows(x, flagged);
  for (int64_t k = 0; k < 6; ++k) {
    const float expected = release ? static_cast<float>(k) * 6 : static_cast<float>(k) - 1;
    if (flagged.reshape({6})[k].item<float>() != expected) {
      std::printf("flag_rows element %lld: expected %g\n", static_cast<long long>(k), expected);
      return 1;
    }
  }
  std::printf("tiny_vmap_user ok (%s)\n", release ? "release" : "debug");
}
