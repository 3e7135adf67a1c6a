// Peer test: what LibTorch users write first (SPEC section 7): accessor<T, N>(),
// index / index_put_ with indexing::{Slice, None, Ellipsis}, integers, long and bool tensor
// indices, and the kF32-style dtype aliases; errors where LibTorch throws.
#include <vmap/vmap.hpp>

#include "peer.hpp"

using namespace vmap;
using namespace vmap::indexing;
using peer::show;
using peer::show_scalar;

namespace {

void accessors(peer::Generator& generator) {
  const Tensor x = peer::random(generator, {3, 4, 5});
  const Tensor strided = x.transpose(0, 2);
  show_scalar("accessor/read", [&] {
    auto a = strided.accessor<float, 3>();
    double total = 0;
    for (int64_t i = 0; i < a.size(0); ++i)
      for (int64_t j = 0; j < a.size(1); ++j)
        for (int64_t k = 0; k < a.size(2); ++k) total += a[i][j][k] * double(i + 2 * j + 3 * k);
    return total;
  });
  show("accessor/write", [&] {
    const Tensor y = x.clone();
    auto a = y.accessor<float, 3>();
    for (int64_t i = 0; i < a.size(0); ++i) a[i][i][i] = float(-i);
    return y;
  });
  show_scalar("accessor/sizes", [&] {
    auto a = strided.accessor<float, 3>();
    return a.size(0) * 100 + a.stride(0) * 10 + a[1].size(1);
  });
  const Tensor counts = arange(10, kI64);
  show_scalar("accessor/int64", [&] { return counts.accessor<int64_t, 1>()[7]; });
  show_scalar("accessor/wrong_dims", [&] { return x.accessor<float, 2>()[0][0]; });
  show_scalar("accessor/wrong_dtype", [&] { return x.accessor<double, 3>()[0][0][0]; });
}

void aliases() {
  show("alias/kF32", [] { return ones({2}, kF32); });
  show("alias/kF64", [] { return ones({2}, kF64); });
  show("alias/kI32", [] { return ones({2}, kI32); });
  show("alias/kI64", [] { return ones({2}, kI64); });
}

void basic_indices(peer::Generator& generator) {
  const Tensor x = peer::random(generator, {3, 4, 5});
  show("index/int", [&] { return x.index({1}); });
  show("index/ints", [&] { return x.index({-1, 2, -5}); });
  show("index/slice", [&] { return x.index({Slice(1, 3)}); });
  show("index/slice_step", [&] { return x.index({Slice(), Slice(None, None, 3), Slice(1, None, 2)}); });
  show("index/slice_negative", [&] { return x.index({Slice(-2, None), Slice(-10, -1)}); });
  show("index/slice_clamped", [&] { return x.index({Slice(2, 100), Slice(5, 1)}); });
  show("index/none", [&] { return x.index({None, 0, None, Slice(1, 3)}); });
  show("index/ellipsis", [&] { return x.index({Ellipsis, 2}); });
  show("index/ellipsis_string", [&] { return x.index({1, "...", None}); });
  show("index/ellipsis_empty", [&] { return x.index({0, 1, Ellipsis, 2}); });
  show("index/empty_list", [&] { return x.index(std::vector<TensorIndex>{}); });
  show_scalar("index/is_view", [&] { return x.index({1, Slice(1, 3)}).data_ptr<float>() == x[1][1].data_ptr<float>(); });
  show("index/write_through_view", [&] {
    Tensor y = x.clone();
    y.index({Slice(), 0}).fill_(0);
    return y;
  });
  show("index/too_many", [&] { return x.index({0, 0, 0, 0}); });
  show("index/out_of_range", [&] { return x.index({3}); });
  show("index/two_ellipses", [&] { return x.index({Ellipsis, Ellipsis}); });
  show("index/two_ellipses_then_int", [&] { return x.index({Ellipsis, 0, Ellipsis}); });
  show("index_put/empty_list", [&] {
    Tensor y = x.clone();
    y.index_put_(std::vector<TensorIndex>{}, 1.0);
    return y;
  });
  show("index/step_zero", [&] { return x.index({Slice(None, None, 0)}); });
  show("index/bad_string", [&] { return x.index({"x"}); });
}

void tensor_indices(peer::Generator& generator) {
  const Tensor x = peer::random(generator, {4, 5, 3});
  const Tensor rows = tensor({3, 0, -1, 1});
  show("index/long", [&] { return x.index({rows}); });
  show("index/long_2d", [&] { return x.index({Slice(), tensor({{4, 0}, {-2, 2}})}); });
  show("index/long_last", [&] { return x.index({Ellipsis, tensor({2, 2, 0})}); });
  show("index/long_after_int", [&] { return x.index({1, tensor({4, 3})}); });
  show("index/long_with_none", [&] { return x.index({None, rows, Slice(1, 3)}); });
  show("index/long_empty", [&] { return x.index({tensor(std::vector<int64_t>{})}); });
  show("index/bool", [&] { return x.index({x.index({Slice(), 0, 0}) > 0}); });
  show("index/bool_2d", [&] { return x.index({x.index({Ellipsis, 1}) > 0}); });
  show("index/bool_last", [&] { return x.index({Ellipsis, tensor({true, false, true})}); });
  show("index/bool_all_false", [&] { return x.index({Slice(), x[0].index({Slice(), 0}) > 10}); });
  show("index/long_out_of_range", [&] { return x.index({tensor({4})}); });
  show("index/long_negative_out_of_range", [&] { return x.index({tensor({-5})}); });
  show("index/int32", [&] { return x.index({tensor({0, 1}).to(kI32)}); });
  show("index/float", [&] { return x.index({tensor({0.0})}); });
  show("index/bool_mismatch", [&] { return x.index({tensor({true, false})}); });
}

void index_puts(peer::Generator& generator) {
  const Tensor x = peer::random(generator, {4, 5});
  const Tensor values = peer::random(generator, {5});
  auto put = [&](auto&& write) {
    return [&x, write] {
      Tensor y = x.clone();  // LibTorch's index_put_ is a non-const member
      write(y);
      return y;
    };
  };
  show("index_put/int", put([&](Tensor& y) { y.index_put_({2}, values); }));
  show("index_put/scalar", put([](Tensor& y) { y.index_put_({Slice(), 1}, 3.5); }));
  show("index_put/slice_broadcast",
       put([&](Tensor& y) { y.index_put_({Slice(1, None, 2)}, values); }));
  show("index_put/leading_ones",
       put([&](Tensor& y) { y.index_put_({0}, values.reshape({1, 1, 5})); }));
  show("index_put/ellipsis",
       put([](Tensor& y) { y.index_put_({Ellipsis, -1}, tensor({1.f, 2.f, 3.f, 4.f})); }));
  show("index_put/long", put([&](Tensor& y) { y.index_put_({tensor({3, 0})}, values); }));
  show("index_put/long_rows", put([](Tensor& y) {
         y.index_put_({tensor({-1, 1}), Slice(None, 2)}, tensor({{1.f, 2.f}, {3.f, 4.f}}));
       }));
  show("index_put/long_scalar",
       put([](Tensor& y) { y.index_put_({Slice(), tensor({4, 2})}, -7); }));
  show("index_put/bool", put([](Tensor& y) { y.index_put_({y > 0.5}, 0.0); }));
  show("index_put/bool_rows",
       put([&](Tensor& y) { y.index_put_({tensor({true, false, false, true})}, values); }));
  show("index_put/bad_shape",
       put([](Tensor& y) { y.index_put_({tensor({0, 1})}, ones({3})); }));
  show("index_put/dtype_mismatch",
       put([](Tensor& y) { y.index_put_({tensor({0, 1})}, ones({2, 5}, kF64)); }));
  show("index_put/basic_casts",
       put([](Tensor& y) { y.index_put_({1}, arange(5, kI64)); }));
}

}  // namespace

int main() {
  peer::Generator generator(29);
  accessors(generator);
  aliases();
  basic_indices(generator);
  tensor_indices(generator);
  index_puts(generator);
}
