// message_passing (samples/message_passing.cpp) by hand in LibTorch: gather every node's
// neighbours at once, weight and sum them with a batched matrix-vector product, then one
// GEMM, the residual and the ReLU in place.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  torch::manual_seed(9);
  const int64_t nodes = 2048, degree = 8, width = 64;
  const torch::Tensor features = torch::randn({nodes, width}).to(sample::device());
  const torch::Tensor neighbours = torch::randint(0, nodes, {nodes, degree}).to(sample::device());
  const torch::Tensor real_degree = torch::randint(1, degree + 1, {nodes, 1});
  const torch::Tensor slot = torch::arange(degree).unsqueeze(0);
  const torch::Tensor edge_weights =
      (torch::rand({nodes, degree}) * (slot < real_degree)).to(sample::device());
  const torch::Tensor weight = (torch::randn({width, width}) / 8.0).to(sample::device());
  const torch::Tensor bias = torch::randn({width}).to(sample::device());
  return {{"GNN message passing 2048 nodes x 8, width 64", nodes, [=](int64_t count) {
             torch::Tensor out = torch::zeros({count, width}, sample::device());
             const torch::Tensor gathered =
                 features.index_select(0, neighbours.narrow(0, 0, count).flatten())
                     .view({count, degree, width});
             const torch::Tensor messages =
                 torch::bmm(edge_weights.narrow(0, 0, count).unsqueeze(1), gathered).squeeze(1);
             torch::addmm_out(out, bias, messages, weight.t());
             out.add_(features.narrow(0, 0, count)).relu_();
             return out;
           }}};
}
static const sample::Registration registration(cases);
