// One GNN message-passing layer over 2048 nodes of width 64: each node sums its (up to) 8
// neighbours' features, weighted per edge (padding edges weigh 0), then a Linear and a
// residual ReLU.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void message_passing(const Tensor& features, const Tensor& neighbours,
                     const Tensor& edge_weights, const Tensor& weight, const Tensor& bias,
                     Tensor& out) {
#pragma vmap
  for (int64_t node = 0; node < neighbours.size(0); ++node) {
    Tensor gathered = features.index_select(0, neighbours[node]);
    Tensor message = (gathered * edge_weights[node].unsqueeze(1)).sum(0);
    out[node] = relu(linear(message, weight, bias) + features[node]);
  }
}

static sample::CaseList cases() {
  manual_seed(9);
  const int64_t nodes = 2048, degree = 8, width = 64;
  const Tensor features = randn({nodes, width}).to(sample::device());
  const Tensor neighbours = randint(0, nodes, {nodes, degree}).to(sample::device());
  // Each node has 1 to 8 real neighbours; the padding slots weigh nothing.
  const Tensor real_degree = randint(1, degree + 1, {nodes, 1});
  const Tensor slot = arange(degree).unsqueeze(0);
  const Tensor edge_weights = (rand({nodes, degree}) * (slot < real_degree)).to(sample::device());
  const Tensor weight = (randn({width, width}) / 8.0).to(sample::device());
  const Tensor bias = randn({width}).to(sample::device());
  return {{"GNN message passing 2048 nodes x 8, width 64", nodes, [=](int64_t count) {
             Tensor out = zeros({count, width}, sample::device());
             message_passing(features, neighbours.narrow(0, 0, count),
                             edge_weights.narrow(0, 0, count), weight, bias, out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
