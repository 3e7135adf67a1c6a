// Peer test: the matmul family (every rank combination of matmul, batched broadcast),
// linear, gather and index_select (negative dims, bad indices), cat and stack, triu and
// tril.
#include <vmap/vmap.hpp>

#include "peer.hpp"

using namespace vmap;
using peer::show;

namespace {

void linear_algebra(peer::Generator& generator) {
  const Tensor vector3 = peer::random(generator, {3});
  const Tensor vector4 = peer::random(generator, {4});
  const Tensor matrix = peer::random(generator, {3, 4});
  const Tensor matrix45 = peer::random(generator, {4, 5});
  const Tensor batch = peer::random(generator, {2, 3, 4});
  const Tensor batch45 = peer::random(generator, {2, 4, 5});
  show("matmul/1d1d", [&] { return matmul(vector4, vector4); });
  show("matmul/2d1d", [&] { return matrix.matmul(vector4); });
  show("matmul/1d2d", [&] { return matmul(vector3, matrix); });
  show("matmul/2d2d", [&] { return matmul(matrix, matrix45); });
  show("matmul/3d2d", [&] { return matmul(batch, matrix45); });
  show("matmul/2d3d", [&] { return matmul(matrix, batch45); });
  show("matmul/3d3d", [&] { return batch.matmul(batch45); });
  show("matmul/3d1d", [&] { return matmul(batch, vector4); });
  show("matmul/1d3d", [&] { return matmul(vector3, batch); });
  show("matmul/broadcast4d", [&] {
    return matmul(peer::random(generator, {2, 1, 3, 4}), peer::random(generator, {3, 4, 2}));
  });
  show("matmul/transposed", [&] { return matmul(matrix45.t(), matrix.t()); });
  show("matmul/float64", [&] { return matmul(matrix.to(kFloat64), matrix45.to(kFloat64)); });
  show("matmul/int64",
       [&] { return matmul(matrix.mul(4).to(kInt64), matrix45.mul(4).to(kInt64)); });
  show("matmul/mixed", [&] { return matmul(matrix, matrix45.to(kFloat64)); });
  show("matmul/mismatch", [&] { return matmul(matrix, matrix); });
  show("matmul/empty", [&] { return matmul(peer::random(generator, {0, 4}), matrix45); });
  show("mm", [&] { return mm(matrix, matrix45); });
  show("mm_member", [&] { return matrix.mm(matrix45); });
  show("mm/1d", [&] { return mm(matrix, vector4); });
  show("mv", [&] { return mv(matrix, vector4); });
  show("mv_member", [&] { return matrix.t().mv(vector3); });
  show("bmm", [&] { return bmm(batch, batch45); });
  show("bmm/2d", [&] { return batch[0].bmm(batch45[0]); });
  show("dot", [&] { return dot(vector4, vector4 * 2); });
  show("dot/member", [&] { return vector3.dot(vector3); });
  show("dot/mismatch", [&] { return dot(vector3, vector4); });
  const Tensor weight = peer::random(generator, {5, 4});
  const Tensor bias = peer::random(generator, {5});
  show("linear", [&] { return linear(matrix, weight, bias); });
  show("linear/no_bias", [&] { return linear(matrix, weight); });
  show("linear/1d", [&] { return linear(vector4, weight, bias); });
  show("linear/3d", [&] { return linear(batch, weight, bias); });
}

void index_ops(peer::Generator& generator) {
  const Tensor input = peer::random(generator, {4, 6});
  const Tensor rows = peer::index(generator, {4, 3}, 6);
  const Tensor columns = peer::index(generator, {2, 6}, 4);
  const Tensor picks = peer::index(generator, {5}, 4);
  show("gather/dim1", [&] { return input.gather(1, rows); });
  show("gather/dim0", [&] { return gather(input, 0, columns); });
  show("gather/negative_dim", [&] { return gather(input, -1, rows); });
  show("gather/int_input", [&] { return input.mul(8).to(kInt32).gather(1, rows); });
  show("gather/out_of_range", [&] { return input.gather(1, rows + 6); });
  show("gather/negative_index", [&] { return input.gather(1, rows - 7); });
  show("index_select/dim0", [&] { return input.index_select(0, picks); });
  show("index_select/dim1", [&] { return index_select(input, 1, picks); });
  show("index_select/negative_dim", [&] { return index_select(input, -2, picks); });
  show("index_select/int32_index", [&] { return input.index_select(0, picks.to(kInt32)); });
  show("index_select/0d_index", [&] { return input.index_select(1, picks[0]); });
  show("index_select/out_of_range", [&] { return input.index_select(0, picks + 4); });
  show("index_select/empty", [&] { return input.index_select(0, picks.narrow(0, 0, 0)); });
  show("index_select/1d", [&] { return input[1].index_select(0, picks); });
  show("operator[]_tensor", [&] { return input[picks]; });
  show("operator[]_0d_tensor", [&] { return input[picks[1]]; });
}

void shapes(peer::Generator& generator) {
  const Tensor a = peer::random(generator, {2, 3});
  const Tensor b = peer::random(generator, {2, 3});
  const Tensor c = peer::random(generator, {4, 3});
  show("cat/dim0", [&] { return cat({a, b, c}, 0); });
  show("cat/dim1", [&] { return cat({a, b}, 1); });
  show("cat/negative", [&] { return cat({a, b}, -1); });
  show("cat/mixed_dtype", [&] { return cat({a, b.to(kFloat64)}); });
  show("cat/int_float", [&] { return cat({a.to(kInt64), b}); });
  show("cat/empty_part", [&] { return cat({a, peer::random(generator, {0, 3})}); });
  show("cat/mismatch", [&] { return cat({a, c}, 1); });
  show("cat/vector", [&] { return cat(std::vector<Tensor>{a, b}, 0); });
  show("stack/dim0", [&] { return stack({a, b}); });
  show("stack/dim1", [&] { return stack({a, b}, 1); });
  show("stack/last", [&] { return stack({a, b}, -1); });
  show("stack/mismatch", [&] { return stack({a, c}); });
  show("stack/0d", [&] { return stack({a[0][0], b[1][2]}); });
  const Tensor square = peer::random(generator, {4, 4});
  const Tensor wide = peer::random(generator, {3, 5});
  for (int64_t diagonal : {-2, -1, 0, 1, 3}) {
    show(peer::named("triu/", diagonal), [&] { return triu(square, diagonal); });
    show(peer::named("tril/", diagonal), [&] { return square.tril(diagonal); });
    show(peer::named("triu_wide/", diagonal), [&] { return wide.triu(diagonal); });
    show(peer::named("tril_wide/", diagonal), [&] { return tril(wide.t(), diagonal); });
  }
  show("triu/batched", [&] { return triu(peer::random(generator, {2, 3, 3})); });
  show("triu/bool", [&] { return triu(ones({3, 3}, kBool)); });
  show("tril/1d", [&] { return tril(a[0]); });
}

}  // namespace

int main() {
  peer::Generator generator(4);
  linear_algebra(generator);
  index_ops(generator);
  shapes(generator);
}
