// Forms of samples/message_passing.cpp (gather the neighbours, weighted sum, Linear,
// residual ReLU) a user writes first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// The weighted sum as a vector-matrix product: edge_weights[node].matmul(gathered).
void weighted_sum_as_matmul(const Tensor& features, const Tensor& neighbours,
                            const Tensor& edge_weights, const Tensor& weight,
                            const Tensor& bias, Tensor& out) {
#pragma vmap
  for (int64_t node = 0; node < neighbours.size(0); ++node) {
    Tensor gathered = features.index_select(0, neighbours[node]);
    Tensor message = edge_weights[node].matmul(gathered);
    out[node] = relu(linear(message, weight, bias) + features[node]);
  }
}

// A plain inner loop over the edges, each neighbour read through .item<int64_t>().
void edge_loop_item(const Tensor& features, const Tensor& neighbours,
                    const Tensor& edge_weights, const Tensor& weight, const Tensor& bias,
                    Tensor& out) {
#pragma vmap
  for (int64_t node = 0; node < neighbours.size(0); ++node) {
    Tensor message = zeros({features.size(1)});
    for (int64_t e = 0; e < neighbours.size(1); ++e) {
      int64_t other = neighbours[node][e].item<int64_t>();
      message = message + features[other] * edge_weights[node][e];
    }
    out[node] = relu(linear(message, weight, bias) + features[node]);
  }
}

// mv and clamp_min for the Linear and the ReLU.
void mv_and_clamp_min(const Tensor& features, const Tensor& neighbours,
                      const Tensor& edge_weights, const Tensor& weight, const Tensor& bias,
                      Tensor& out) {
#pragma vmap
  for (int64_t node = 0; node < neighbours.size(0); ++node) {
    Tensor gathered = features.index_select(0, neighbours[node]);
    Tensor message = (gathered * edge_weights[node].unsqueeze(1)).sum(0);
    Tensor h = weight.mv(message) + bias + features[node];
    out[node] = h.clamp_min(0);
  }
}

Tensor aggregate(const Tensor& features, const Tensor& neighbours,
                        const Tensor& weights) {
  return (features.index_select(0, neighbours) * weights.unsqueeze(1)).sum(0);
}

void through_a_helper(const Tensor& features, const Tensor& neighbours,
                      const Tensor& edge_weights, const Tensor& weight, const Tensor& bias,
                      Tensor& out) {
#pragma vmap
  for (int64_t node = 0; node < neighbours.size(0); ++node)
    out[node] = relu(linear(aggregate(features, neighbours[node], edge_weights[node]),
                            weight, bias) +
                     features[node]);
}

// Several stores into the node's slot: out[node] = ...; out[node] += ...; out[node] = relu(...)
void store_then_update(const Tensor& features, const Tensor& neighbours,
                       const Tensor& edge_weights, const Tensor& weight, const Tensor& bias,
                       Tensor& out) {
#pragma vmap
  for (int64_t node = 0; node < neighbours.size(0); ++node) {
    Tensor gathered = features.index_select(0, neighbours[node]);
    Tensor message = (gathered * edge_weights[node].unsqueeze(1)).sum(0);
    out[node] = linear(message, weight, bias);
    out[node] += features[node];
    out[node] = relu(out[node]);
  }
}

struct GraphLayer {
  Tensor weight, bias;
  void forward(const Tensor& features, const Tensor& neighbours, const Tensor& edge_weights,
               Tensor& out) const {
#pragma vmap
    for (int64_t node = 0; node < neighbours.size(0); ++node) {
      Tensor gathered = features.index_select(0, neighbours[node]);
      Tensor message = (gathered * edge_weights[node].unsqueeze(1)).sum(0);
      out[node] = relu(linear(message, weight, bias) + features[node]);
    }
  }
};

void member_function(const Tensor& features, const Tensor& neighbours,
                     const Tensor& edge_weights, const Tensor& weight, const Tensor& bias,
                     Tensor& out) {
  GraphLayer{weight, bias}.forward(features, neighbours, edge_weights, out);
}

}  // namespace

static sample::CaseList cases() {
  manual_seed(9);
  const int64_t nodes = 2048, degree = 8, width = 64;
  const Tensor features = randn({nodes, width}).to(sample::device());
  const Tensor neighbours = randint(0, nodes, {nodes, degree}).to(sample::device());
  const Tensor real_degree = randint(1, degree + 1, {nodes, 1});
  const Tensor slot = arange(degree).unsqueeze(0);
  const Tensor edge_weights = (rand({nodes, degree}) * (slot < real_degree)).to(sample::device());
  const Tensor weight = (randn({width, width}) / 8.0).to(sample::device());
  const Tensor bias = randn({width}).to(sample::device());
  using Form = void (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                        const Tensor&, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f, Dtype dtype) {
    const Tensor x = features.to(dtype), e = edge_weights.to(dtype), w = weight.to(dtype),
                 b = bias.to(dtype);
    list.push_back({"GNN message passing 2048 nodes x 8, width 64 :: message_passing/" + form,
                    nodes,
                    [=](int64_t count) {
                      Tensor out = zeros({count, width},
                                         TensorOptions(dtype).device(sample::device()));
                      f(x, neighbours.narrow(0, 0, count), e.narrow(0, 0, count), w, b, out);
                      return out;
                    }});
  };
  add("weighted_sum_as_matmul", weighted_sum_as_matmul, kFloat);
  add("edge_loop_item", edge_loop_item, kFloat);
  add("mv_and_clamp_min", mv_and_clamp_min, kFloat);
  add("through_a_helper", through_a_helper, kFloat);
  add("store_then_update", store_then_update, kFloat);
  add("GraphLayer::forward", member_function, kFloat);
  add("GraphLayer::forward (float64)", member_function, kDouble);
  return list;
}
static const sample::Registration registration(cases);
