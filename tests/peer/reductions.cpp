// Peer test: reductions over every dtype: all elements, one dim, a list of dims, keepdim,
// negative dims, empty tensors; arg-reductions, any/all, softmax and log_softmax.
#include <vmap/vmap.hpp>

#include "peer.hpp"

#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

using namespace vmap;
using peer::show;

namespace {

// LibTorch 1.13 cannot take a braced dim list where a Dimname list overload also exists
// (sum, mean): `x.sum({0, 2})` is ambiguous there, so these pass a vector.
std::vector<int64_t> dims(std::initializer_list<int64_t> list) { return list; }

void reductions_of(const std::string& name, const Tensor& x) {
  show("sum/" + name, [&] { return x.sum(); });
  show("sum_dim/" + name, [&] { return x.sum(1); });
  show("sum_keepdim/" + name, [&] { return sum(x, -1, true); });
  show("sum_dims/" + name, [&] { return x.sum(dims({0, 2})); });
  show("sum_dims_keepdim/" + name, [&] { return sum(x, dims({-1, 0}), true); });
  show("mean/" + name, [&] { return x.mean(); });
  show("mean_dim/" + name, [&] { return mean(x, -2); });
  show("mean_dims_keepdim/" + name, [&] { return x.mean(dims({1, 2}), true); });
  show("amax/" + name, [&] { return x.amax(1); });
  show("amax_keepdim/" + name, [&] { return amax(x, -1, true); });
  show("amax_dims/" + name, [&] { return x.amax({0, 1}); });
  show("amin/" + name, [&] { return amin(x, 0); });
  show("argmax/" + name, [&] { return x.argmax(); });
  show("argmax_dim/" + name, [&] { return argmax(x, 2); });
  show("argmax_keepdim/" + name, [&] { return x.argmax(-1, true); });
  show("argmin_dim/" + name, [&] { return argmin(x, 1); });
  show("argmin/" + name, [&] { return x.argmin(); });
  show("any/" + name, [&] { return x.any(); });
  show("any_dim/" + name, [&] { return any(x, 1); });
  show("all/" + name, [&] { return all(x); });
  show("all_dim_keepdim/" + name, [&] { return x.all(-1, true); });
  show("sum_bad_dim/" + name, [&] { return x.sum(3); });
  // SPEC section 6: scans and statistics
  show("cumsum/" + name, [&] { return x.cumsum(1); });
  show("cumsum_last/" + name, [&] { return cumsum(x, -1); });
  show("cumprod/" + name, [&] { return cumprod(x, 0); });
  show("logsumexp/" + name, [&] { return x.logsumexp(dims({1})); });
  show("logsumexp_keepdim/" + name, [&] { return logsumexp(x, dims({0, 2}), true); });
  show("var/" + name, [&] { return x.var(); });
  show("var_biased/" + name, [&] { return var(x, false); });
  show("var_dims/" + name, [&] { return x.var(dims({1}), true, false); });
  show("var_biased_keepdim/" + name, [&] { return var(x, dims({0, 2}), false, true); });
  show("std/" + name, [&] { return x.std(); });
  show("std_dims/" + name, [&] { return vmap::std(x, dims({-1}), true, true); });
  show("norm/" + name, [&] { return x.norm(); });
  show("norm_1/" + name, [&] { return norm(x, 1); });
  show("norm_3_dims/" + name, [&] { return x.norm(3, dims({1}), false); });
  show("norm_inf_dims/" + name, [&] { return norm(x, INFINITY, dims({0}), true); });
}

}  // namespace

int main() {
  peer::Generator generator(3);
  reductions_of("float32", peer::random(generator, {3, 4, 5}));
  reductions_of("float64", peer::random(generator, {3, 4, 5}, kFloat64));
  reductions_of("int32", peer::random(generator, {3, 4, 5}, kInt32));
  reductions_of("int64", peer::random(generator, {3, 4, 5}, kInt64));
  reductions_of("bool", peer::random(generator, {3, 4, 5}, kBool));
  reductions_of("transposed", peer::random(generator, {5, 4, 3}).transpose(0, 2));

  const Tensor empty_rows = peer::random(generator, {0, 4});
  show("empty/sum", [&] { return empty_rows.sum(); });
  show("empty/sum_dim0", [&] { return empty_rows.sum(0); });
  show("empty/sum_dim1", [&] { return sum(empty_rows, 1); });
  show("empty/mean", [&] { return empty_rows.mean(); });
  show("empty/amax_dim0", [&] { return empty_rows.amax(0); });
  show("empty/amax_dim1", [&] { return empty_rows.amax(1); });
  show("empty/argmax", [&] { return empty_rows.argmax(); });
  show("empty/any", [&] { return empty_rows.any(); });
  show("empty/all", [&] { return empty_rows.all(); });

  const Tensor scalar = peer::random(generator, {});
  show("0d/sum", [&] { return scalar.sum(); });
  show("0d/sum_dim", [&] { return scalar.sum(0); });
  show("0d/argmax", [&] { return scalar.argmax(); });
  show("0d/softmax", [&] { return softmax(scalar, 0); });

  const Tensor logits = peer::random(generator, {3, 4, 5}) * 4;
  for (int64_t dim : {0, 1, 2, -1}) {
    show(peer::named("softmax/", dim), [&] { return softmax(logits, dim); });
    show(peer::named("log_softmax/", dim), [&] { return log_softmax(logits, dim); });
    show(peer::named("softmax_member/", dim), [&] { return logits.softmax(dim); });
    show(peer::named("log_softmax_member/", dim), [&] { return logits.log_softmax(dim); });
  }
  show("softmax/float64", [&] { return softmax(logits.to(kFloat64), 1); });
  show("softmax/int", [&] { return softmax(logits.to(kInt64), 1); });
  show("log_softmax/large", [&] { return log_softmax(logits * 100, -1); });
  show("softmax/bad_dim", [&] { return softmax(logits, 3); });
  const Tensor one_row = peer::random(generator, {1, 4});
  show("var/one_element", [&] { return one_row.var(dims({0})); });
  show("logsumexp/neg_inf", [&] {
    return logsumexp(tensor({-INFINITY, -INFINITY}).reshape({1, 2}), dims({1}));
  });
  const Tensor values = peer::random(generator, {3, 4});
  const Tensor mask = peer::random(generator, {3, 4}, kBool);
  show("masked_fill", [&] { return values.masked_fill(mask, -1.5); });
  show("masked_fill_int", [&] { return masked_fill(values.to(kInt64), mask, 2.7); });
  show("masked_fill_row_mask", [&] { return values.masked_fill(mask[0], 0); });
  show("masked_fill_tensor", [&] { return values.masked_fill(mask, tensor(9.0)); });
  show("masked_fill_mask_too_wide", [&] { return values.masked_fill(mask.t(), 1); });
  const Tensor ends = peer::random(generator, {3, 4});
  show("lerp", [&] { return lerp(values, ends, 0.25); });
  show("lerp_member_high", [&] { return values.lerp(ends, 0.75); });
  show("lerp_tensor_weight", [&] { return lerp(values, ends, ends.abs() / 2); });
  const Tensor ties = tensor({{1, 3, 3}, {2, 2, 1}});
  show("ties/argmax", [&] { return argmax(ties, 1); });
  show("ties/argmin", [&] { return argmin(ties, 0); });
  show("ties/argmax_flat", [&] { return ties.argmax(); });
}
