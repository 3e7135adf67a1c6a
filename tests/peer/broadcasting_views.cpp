// Peer test: broadcasting (size-1 dims, 0-d, empty tensors, mismatches), views that share
// storage (select, narrow, transpose, permute, expand, view, reshape, ...), and writes
// through them (`t[i] = other`, `t[i] = 3.0`, copy_, fill_, in-place operators); dtype
// conversions, allclose and equal.
#include <vmap/vmap.hpp>

#include "peer.hpp"

using namespace vmap;
using peer::show;
using peer::show_scalar;

namespace {

void broadcasting(peer::Generator& generator) {
  const Tensor column = peer::random(generator, {3, 1});
  const Tensor row = peer::random(generator, {1, 4});
  const Tensor matrix = peer::random(generator, {3, 4});
  const Tensor cube = peer::random(generator, {2, 3, 4});
  const Tensor scalar = peer::random(generator, {});
  const Tensor empty_rows = peer::random(generator, {0, 4});
  const Tensor ints = peer::random(generator, {4}, kInt64);
  show("column+row", [&] { return column + row; });
  show("cube*row", [&] { return cube * row; });
  show("cube-column", [&] { return cube - column; });
  show("matrix/0d", [&] { return matrix / scalar; });
  show("0d*0d", [&] { return scalar * scalar; });
  show("empty+row", [&] { return empty_rows + row; });
  show("empty+0d", [&] { return empty_rows + scalar; });
  show("empty_sum", [&] { return (empty_rows * 2).sum(); });
  show("matrix+ints", [&] { return matrix + ints; });
  show("cube<matrix", [&] { return cube < matrix; });
  show("where_broadcast", [&] { return where(column > 0, row, scalar); });
  show("mismatch", [&] { return matrix + peer::random(generator, {3}); });
  show("mismatch_empty", [&] { return empty_rows + peer::random(generator, {2, 4}); });
  show("in_place_broadcast", [&] {
    Tensor t = matrix.clone();
    t += row;
    t -= column;
    return t;
  });
  show("in_place_grows", [&] {
    Tensor t = row.clone();
    t += matrix;  // the result would not fit t
    return t;
  });
  show("expand", [&] { return column.expand({3, 5}); });
  show("expand_free", [&] { return expand(row, {2, 3, 4}); });
  show("expand_minus_one", [&] { return column.expand({2, -1, 4}); });
  show("expand_bad", [&] { return matrix.expand({3, 5}); });
  show("expand_0d", [&] { return scalar.expand({2, 2}); });
  show("expand_as", [&] { return column.expand_as(matrix); });
  show("expand_as_0d", [&] { return scalar.expand_as(cube); });
  show("expand_as_bad", [&] { return matrix.expand_as(column); });
  show_scalar("sizes",
              [&] { return cube.sizes()[2] * 10 + static_cast<int64_t>(cube.sizes().size()); });
  show_scalar("scalar_type", [&] { return ints.scalar_type() == kInt64; });
}

void views(peer::Generator& generator) {
  const Tensor base = peer::random(generator, {3, 4, 5});
  show("select", [&] { return base.select(1, 2); });
  show("select_negative", [&] { return base.select(-1, -2); });
  show("index", [&] { return base[1][2]; });
  show("index_negative", [&] { return base[-1]; });
  show("index_out_of_range", [&] { return base[3]; });
  show("narrow", [&] { return base.narrow(2, 1, 3); });
  show("narrow_free", [&] { return narrow(base, -1, 0, 2); });
  show("transpose", [&] { return base.transpose(0, 2); });
  show("transpose_free", [&] { return transpose(base, -1, 0); });
  show("t", [&] { return base[0].t(); });
  show("permute", [&] { return base.permute({2, 0, 1}); });
  show("permute_free", [&] { return permute(base, {1, 2, 0}); });
  show("unsqueeze", [&] { return base.unsqueeze(1); });
  show("unsqueeze_last", [&] { return unsqueeze(base, -1); });
  show("squeeze", [&] { return base.unsqueeze(0).unsqueeze(3).squeeze(); });
  show("squeeze_dim", [&] { return squeeze(base.unsqueeze(2), 2); });
  show("squeeze_not_one", [&] { return base.squeeze(1); });
  show("view", [&] { return base.view({12, 5}); });
  show("view_minus_one", [&] { return base.view({-1, 10}); });
  show("view_bad", [&] { return base.transpose(0, 1).view({60}); });
  show("reshape", [&] { return base.transpose(0, 1).reshape({4, 15}); });
  show("reshape_free", [&] { return reshape(base, {5, -1}); });
  show("flatten", [&] { return base.flatten(); });
  show("flatten_range", [&] { return flatten(base, 1); });
  show("movedim", [&] { return base.movedim(0, -1); });
  show("movedim_free", [&] { return movedim(base, 2, 0); });
  show_scalar("contiguous/base", [&] { return base.is_contiguous(); });
  show_scalar("contiguous/transposed", [&] { return base.transpose(1, 2).is_contiguous(); });
  show_scalar("contiguous/made", [&] { return base.transpose(1, 2).contiguous().is_contiguous(); });
  show_scalar("contiguous/narrowed", [&] { return base.narrow(0, 1, 1).is_contiguous(); });
  show_scalar("dim", [&] { return base.dim(); });
  show_scalar("numel", [&] { return base.numel(); });
  show_scalar("size_negative", [&] { return base.size(-1); });
  show_scalar("item_float", [&] { return base[0][1][2].item<float>(); });
  show_scalar("item_int", [&] { return base[0][1][2].to(kInt64).item<int64_t>(); });
  show_scalar("item_bool", [&] { return (base[1][1][1] > 0).item<bool>(); });
  show_scalar("item_not_one", [&] { return base[0].item<float>(); });
  show_scalar("data_ptr", [&] { return base.contiguous().data_ptr<float>()[7]; });
}

void writes_through_views(peer::Generator& generator) {
  const Tensor source = peer::random(generator, {3, 4});
  const Tensor ints = peer::random(generator, {4}, kInt32);
  show("assign_row", [&] {
    Tensor t = zeros({3, 4});
    t[1] = source[2];
    return t;
  });
  show("assign_scalar", [&] {
    Tensor t = zeros({3, 4});
    t[2] = 3.0;
    t[0][1] = 5;
    return t;
  });
  show("assign_broadcast", [&] {
    Tensor t = zeros({3, 4});
    t[0] = source[1][2];
    return t;
  });
  show("assign_converts", [&] {
    Tensor t = zeros({3, 4}, kInt64);
    t[1] = source[0] * 4;  // float to int64: truncated
    return t;
  });
  show("assign_int_into_float", [&] {
    Tensor t = zeros({3, 4});
    t[2] = ints;
    return t;
  });
  show("assign_wrong_shape", [&] {
    Tensor t = zeros({3, 4});
    t[1] = source;
    return t;
  });
  show("alias_select", [&] {
    Tensor t = source.clone();
    Tensor row = t[1];
    row.fill_(7);
    return t;
  });
  show("alias_transpose", [&] {
    Tensor t = source.clone();
    t.t()[2] = -1.0;
    return t;
  });
  show("alias_narrow_add", [&] {
    Tensor t = source.clone();
    Tensor middle = t.narrow(1, 1, 2);
    middle += 10;
    return t;
  });
  show("alias_view", [&] {
    Tensor t = source.clone();
    t.view({12})[5] = 100;
    return t;
  });
  show("alias_reshape", [&] {
    Tensor t = source.clone();
    t.reshape({2, 6})[1].zero_();
    return t;
  });
  show("clone_independent", [&] {
    Tensor t = source.clone();
    Tensor copy = t.clone();
    copy.fill_(0);
    return t;
  });
  show("copy_into_column", [&] {
    Tensor t = zeros({3, 4});
    t.select(1, 2).copy_(source.select(1, 0));
    return t;
  });
  show("copy_broadcast", [&] {
    Tensor t = zeros({3, 4});
    t.copy_(source[0]);
    return t;
  });
  show("fill_tensor", [&] {
    Tensor t = zeros({2, 2});
    t.fill_(source[1][1]);
    return t;
  });
  show("rebind", [&] {
    Tensor t = source.clone();
    Tensor other = t;
    other = zeros({2});  // rebinds `other`, leaves t alone
    return t;
  });
  show("from_blob_shares", [&] {
    float data[4] = {1, 2, 3, 4};
    Tensor t = from_blob(data, {2, 2});
    t[0][1] = 9;
    return tensor({data[0], data[1], data[2], data[3]});
  });
}

void conversions_and_checks() {
  const Tensor reals = tensor({-1.5, 2.75, 0.0, -0.25});
  show("to/float_int32", [&] { return reals.to(kInt32); });
  show("to/float_int64", [&] { return reals.to(kInt64); });
  show("to/float_bool", [&] { return reals.to(kBool); });
  show("to/float64", [&] { return reals.to(kFloat64) / 3; });
  show("to/bool_float", [&] { return (reals > 0).to(kFloat32); });
  show("to/int_bool", [&] { return tensor({0, 3, -2}).to(kBool); });
  show("to/cpu", [&] { return reals.to(kCPU); });
  show("to/same_dtype_shares", [&] {
    Tensor t = reals.clone();
    t.to(kFloat32)[0] = 9;  // to() with nothing to change returns the tensor itself
    return t;
  });
  show_scalar("device_cpu", [&] { return reals.device() == kCPU; });
  show_scalar("equal/same", [&] { return equal(reals, reals.clone()); });
  show_scalar("equal/different", [&] { return equal(reals, reals + 1); });
  show_scalar("equal/shape", [&] { return equal(reals, reals.unsqueeze(0)); });
  show_scalar("allclose/near", [&] { return allclose(reals, reals + 1e-9); });
  show_scalar("allclose/far", [&] { return allclose(reals, reals + 1e-3); });
  show_scalar("allclose/tolerances", [&] { return allclose(reals, reals + 1e-3, 0.0, 1e-2); });
  show_scalar("dtype_of_sum", [&] { return tensor({true, true}).sum().dtype() == kInt64; });
}

}  // namespace

int main() {
  peer::Generator generator(2);
  broadcasting(generator);
  views(generator);
  writes_through_views(generator);
  conversions_and_checks();
}
