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
  std::printf("tiny_vmap_user ok\n");
}
