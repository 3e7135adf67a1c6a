// LibTorch C++: torch::Tensors in through at::toDLPack, the clang-vmap-batched loop of
// scores.cpp, a torch::Tensor out through at::fromDLPack; no copy either way. Checked
// against the same computation in LibTorch; prints "ok" or exits 1.
#include "scores.hpp"

#include <vmap/dlpack.hpp>

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include <iostream>

namespace {
vmap::Tensor from_torch(const at::Tensor& t) { return vmap::from_dlpack(at::toDLPack(t)); }
at::Tensor to_torch(const vmap::Tensor& t) { return at::fromDLPack(vmap::to_dlpack(t)); }
}  // namespace

int main() {
  at::manual_seed(0);
  const at::Tensor x = at::randn({64, 16});
  const at::Tensor w = at::randn({16, 8});
  const at::Tensor bias = at::randn({8});

  // The output is LibTorch's too: the loop writes straight into its memory.
  at::Tensor out = at::empty({64, 8});
  vmap::Tensor out_view = from_torch(out);
  scores(from_torch(x), from_torch(w), from_torch(bias), out_view);
  // And a result of ours handed to LibTorch without a copy.
  const at::Tensor doubled = to_torch(vmap::mul(out_view, 2));

  const at::Tensor expected = at::relu(x.matmul(w) + bias) * x.sum(1, /*keepdim=*/true);
  const bool same_memory = out_view.raw_data() == out.data_ptr();
  if (!same_memory || !at::allclose(out, expected, 1e-5, 1e-5) ||
      !at::allclose(doubled, expected * 2, 1e-5, 1e-5)) {
    std::cerr << "torch_cpp_example: wrong result or a copy\n";
    return 1;
  }
  std::cout << "ok: torch::Tensor in, batched scores, torch::Tensor out, no copy\n";
}
