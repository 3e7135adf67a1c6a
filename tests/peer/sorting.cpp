// Peer test: sort, argsort, topk and one_hot (SPEC section 6) over every dtype, member and
// free forms, every dim, descending / smallest, NaN, 0-d and empty tensors, bad k, dims and
// class values. Indices are recorded only for rows of distinct values: LibTorch's sort is
// not stable, so the order of equal values' indices is unspecified there.
#include <vmap/vmap.hpp>

#include "peer.hpp"

#include <cmath>
#include <string>
#include <tuple>

using namespace vmap;
using peer::show;

namespace {

void values_of(const std::string& name, const Tensor& x) {
  show("sort/" + name, [&] { return std::get<0>(x.sort()); });
  show("sort_desc_dim0/" + name, [&] { return std::get<0>(sort(x, 0, true)); });
  show("sort_dim1/" + name, [&] { return std::get<0>(x.sort(1)); });
  show("topk/" + name, [&] { return std::get<0>(x.topk(2)); });
  show("topk_smallest_dim0/" + name, [&] { return std::get<0>(topk(x, 3, 0, false)); });
  show("topk_unsorted_sum/" + name, [&] { return std::get<0>(x.topk(3, -1, true, false)).sum(-1); });
  show("topk_zero/" + name, [&] { return std::get<0>(x.topk(0, 1)); });
  show("topk_k_too_large/" + name, [&] { return std::get<0>(x.topk(6)); });
  show("topk_negative_k/" + name, [&] { return std::get<0>(topk(x, -1)); });
  show("sort_bad_dim/" + name, [&] { return std::get<0>(x.sort(3)); });
}

// x's values are distinct along every dim: indices are defined.
void indices_of(const std::string& name, const Tensor& x) {
  show("sort_indices/" + name, [&] { return std::get<1>(sort(x)); });
  show("sort_indices_desc_dim1/" + name, [&] { return std::get<1>(x.sort(1, true)); });
  show("argsort/" + name, [&] { return x.argsort(); });
  show("argsort_dim0/" + name, [&] { return argsort(x, int64_t{0}); });  // LibTorch: argsort(x, 0) is ambiguous with argsort(x, stable)
  show("argsort_desc/" + name, [&] { return argsort(x, -2, true); });
  show("topk_indices/" + name, [&] { return std::get<1>(topk(x, 2)); });
  show("topk_indices_smallest/" + name, [&] { return std::get<1>(x.topk(3, 1, false)); });
  show("structured/" + name, [&] {
    auto [values, indices] = x.topk(2, 0);
    return values + indices.to(values.dtype());
  });
}

}  // namespace

int main() {
  peer::Generator generator(5);
  values_of("float32", peer::random(generator, {3, 4, 5}));
  values_of("float64", peer::random(generator, {3, 4, 5}, kFloat64));
  values_of("int32", peer::random(generator, {3, 4, 5}, kInt32));
  values_of("int64", peer::random(generator, {3, 4, 5}, kInt64));
  values_of("bool", peer::random(generator, {3, 4, 5}, kBool));
  values_of("transposed", peer::random(generator, {5, 4, 3}).transpose(0, 2));

  // 0..59 permuted (37 is prime to 60): distinct everywhere
  const Tensor distinct = ((arange(60) * 37) % 60 - 30).reshape({3, 4, 5});
  indices_of("int64", distinct);
  indices_of("int32", distinct.to(kInt32));
  indices_of("float32", distinct.to(kFloat32) / 8);
  indices_of("float64", distinct.to(kFloat64) / 8);
  indices_of("transposed", distinct.to(kFloat32).transpose(0, 2));

  const Tensor with_nan = tensor({{1.5f, NAN, -2.0f, 0.5f}, {NAN, 3.0f, -1.0f, 2.0f}});
  for (bool descending : {false, true}) {
    const std::string suffix = descending ? "desc" : "asc";
    show("nan/sort_" + suffix, [&] { return std::get<0>(with_nan.sort(1, descending)); });
    show("nan/sort_indices_" + suffix, [&] { return std::get<1>(with_nan.sort(1, descending)); });
    show("nan/topk_" + suffix, [&] { return std::get<0>(with_nan.topk(2, 1, !descending)); });
    show("nan/topk_indices_" + suffix,
         [&] { return std::get<1>(with_nan.topk(2, 1, !descending)); });
  }

  const Tensor scalar = tensor(2.5);
  show("0d/sort", [&] { return std::get<0>(scalar.sort()); });
  show("0d/sort_indices", [&] { return std::get<1>(sort(scalar, 0)); });
  show("0d/argsort", [&] { return scalar.argsort(); });
  show("0d/topk_one", [&] { return std::get<0>(scalar.topk(1)); });
  show("0d/topk_zero", [&] { return std::get<0>(topk(scalar, 0)); });
  show("0d/topk_zero_indices", [&] { return std::get<1>(topk(scalar, 0)); });
  show("0d/topk_two", [&] { return std::get<0>(scalar.topk(2)); });
  show("0d/sort_bad_dim", [&] { return std::get<0>(scalar.sort(1)); });
  const Tensor empty_rows = zeros({0, 3});
  show("empty/sort", [&] { return std::get<0>(empty_rows.sort(0)); });
  show("empty/topk", [&] { return std::get<1>(empty_rows.topk(2)); });
  show("empty/argsort", [&] { return argsort(empty_rows); });

  const Tensor classes = tensor({{0, 2, 1}, {3, 0, 0}}).to(kInt64);
  show("one_hot/inferred", [&] { return one_hot(classes); });
  show("one_hot/num_classes", [&] { return one_hot(classes, 6); });
  show("one_hot/row", [&] { return one_hot(classes[1], 4); });
  show("one_hot/0d", [&] { return one_hot(tensor(int64_t{2}), 3); });
  show("one_hot/too_few_classes", [&] { return one_hot(classes, 3); });
  show("one_hot/negative", [&] { return one_hot(classes - 1); });
  show("one_hot/int32", [&] { return one_hot(classes.to(kInt32), 4); });
  show("one_hot/float", [&] { return one_hot(classes.to(kFloat32)); });
  show("one_hot/empty_inferred", [&] { return one_hot(zeros({0}, kInt64)); });
  show("one_hot/empty", [&] { return one_hot(zeros({2, 0}, kInt64), 3); });
}
