// Peer test: pointwise ops and operators, dtype promotion between every pair of the five
// dtypes (tensors, 0-d tensors and C++ scalars on either side), in-place ops, factories.
#include <vmap/vmap.hpp>

#include "peer.hpp"

#include <string>
#include <vector>

using namespace vmap;
using peer::show;

namespace {

struct NamedDtype {
  std::string name;
  Dtype dtype;
};
const std::vector<NamedDtype> kDtypes = {{"float32", kFloat32},
                                         {"float64", kFloat64},
                                         {"int32", kInt32},
                                         {"int64", kInt64},
                                         {"bool", kBool}};

void binary_ops(const std::string& pair, const Tensor& x, const Tensor& y) {
  show("add/" + pair, [&] { return x + y; });
  show("sub/" + pair, [&] { return x - y; });
  show("mul/" + pair, [&] { return x * y; });
  show("div/" + pair, [&] { return x / y; });
  show("percent/" + pair, [&] { return x % y; });
  show("div_trunc/" + pair, [&] { return div(x, y, "trunc"); });
  show("div_floor/" + pair, [&] { return x.div(y, "floor"); });
  show("less/" + pair, [&] { return x < y; });
  show("equals/" + pair, [&] { return x == y; });
  show("maximum/" + pair, [&] { return maximum(x, y); });
  show("minimum/" + pair, [&] { return minimum(x, y); });
  show("pow/" + pair, [&] { return pow(x, y); });
  show("and/" + pair, [&] { return x & y; });
  show("or/" + pair, [&] { return x | y; });
  show("logical_and/" + pair, [&] { return logical_and(x, y); });
  show("logical_or/" + pair, [&] { return logical_or(x, y); });
  show("add_alpha/" + pair, [&] { return add(x, y, 2); });
  // the runtime's pointwise op list (Note [Pointwise op list]): free and member forms
#define VMAP_BINARY_OP(op, Functor, domain)              \
  show(#op "/" + pair, [&] { return op(x, y); });       \
  show(#op "_member/" + pair, [&] { return x.op(y); });
#include "../../runtime/include/vmap/detail/pointwise_ops.def"
}

void scalar_ops(const std::string& name, const Tensor& x) {
  show("plus_int/" + name, [&] { return x + 2; });
  show("plus_double/" + name, [&] { return x + 2.5; });
  show("plus_bool/" + name, [&] { return x + true; });
  show("int_minus/" + name, [&] { return 2 - x; });
  show("double_minus/" + name, [&] { return 2.5 - x; });
  show("double_div/" + name, [&] { return 2.5 / x; });
  show("div_int/" + name, [&] { return x / 2; });
  show("percent_int/" + name, [&] { return x % 3; });
  show("div_trunc_int/" + name, [&] { return x.div(-2, "trunc"); });
  show("div_trunc_double/" + name, [&] { return div(x, 0.75, "trunc"); });
  show("div_floor_double/" + name, [&] { return x.div(-2.5, "floor"); });
  show("div_bad_mode/" + name, [&] { return div(x, 2, "round"); });
  show("percent_double/" + name, [&] { return x % -2.5; });
  show("int_percent/" + name, [&] { return 7 % x; });
  show("double_percent/" + name, [&] { return 2.5 % x; });
  show("times_half/" + name, [&] { return 0.5 * x; });
  show("less_double/" + name, [&] { return x < 1.5; });
  show("int_lt/" + name, [&] { return 1 < x; });
  show("equals_int/" + name, [&] { return x == 1; });
  show("pow_2/" + name, [&] { return x.pow(2); });
  show("pow_half/" + name, [&] { return x.pow(0.5); });
  // The exponents pow computes by multiplies, roots and reciprocals (Note [pow strength
  // reduction]), as ints and doubles; negative ints on integer tensors throw.
  for (int e : {0, 1, 3, 4, 7, -1, -2, -3})
    show("pow_int_" + std::to_string(e) + "/" + name, [&] { return x.pow(e); });
  for (double e : {0.0, 1.0, 2.0, 3.0, -0.5, -1.0, -2.0, 5.0})
    show("pow_double_" + std::to_string(e) + "/" + name, [&] { return pow(x, e); });
  show("pow_0d_2/" + name, [&] { return x.pow(tensor(2)); });
  show("pow_0d_half/" + name, [&] { return x.pow(tensor(0.5)); });
  show("pow_1elem_-2/" + name, [&] { return x.pow(tensor({-2.0})); });
  show("two_pow/" + name, [&] { return pow(2.0, x); });
  show("clamp/" + name, [&] { return x.clamp(-1, 1); });
  show("clamp_double/" + name, [&] { return clamp(x, -0.5, 1.5); });
  show("clamp_min/" + name, [&] { return clamp(x, -0.5); });
// (0-d tensors: LibTorch lacks some Scalar overloads, e.g. atan2's)
#define VMAP_BINARY_OP(op, Functor, domain)                          \
  show(#op "_int/" + name, [&] { return op(x, tensor(2)); });       \
  show(#op "_double/" + name, [&] { return x.op(tensor(-1.5)); });
#include "../../runtime/include/vmap/detail/pointwise_ops.def"
}

void unary_ops(const std::string& name, const Tensor& x) {
  show("neg/" + name, [&] { return neg(x); });
  show("minus/" + name, [&] { return -x; });
  show("abs/" + name, [&] { return x.abs(); });
  show("sqrt/" + name, [&] { return sqrt(x); });
  show("exp/" + name, [&] { return x.exp(); });
  show("log/" + name, [&] { return log(x); });
  show("sin/" + name, [&] { return sin(x); });
  show("cos/" + name, [&] { return cos(x); });
  show("tanh/" + name, [&] { return x.tanh(); });
  show("sigmoid/" + name, [&] { return sigmoid(x); });
  show("logical_not/" + name, [&] { return logical_not(x); });
  show("not/" + name, [&] { return !x; });
  show("gelu/" + name, [&] { return gelu(x); });
  show("gelu_none/" + name, [&] { return gelu(x, "none"); });
  show("gelu_tanh/" + name, [&] { return gelu(x, "tanh"); });
  show("gelu_bad_approximate/" + name, [&] { return gelu(x, "erf"); });
  show("softplus/" + name, [&] { return softplus(x); });
  show("softplus_beta_threshold/" + name, [&] { return softplus(x, 2, 1); });
  show("softplus_half_beta/" + name, [&] { return softplus(x, 0.5, -1.5); });
// (free forms only: LibTorch lacks some members, e.g. Tensor::silu)
#define VMAP_UNARY_OP(op, Functor, domain, simd, cost) show(#op "/" + name, [&] { return op(x); });
#include "../../runtime/include/vmap/detail/pointwise_ops.def"
}

void in_place_ops(const std::string& pair, const Tensor& x, const Tensor& y) {
  show("add_/" + pair, [&] {
    Tensor t = x.clone();
    t += y;
    return t;
  });
  show("mul_/" + pair, [&] {
    Tensor t = x.clone();
    t *= y;
    return t;
  });
  show("div_/" + pair, [&] {
    Tensor t = x.clone();
    t /= y;
    return t;
  });
  show("copy_/" + pair, [&] {
    Tensor t = x.clone();
    t.copy_(y);
    return t;
  });
}

void factories() {
  show("zeros", [] { return zeros({2, 3}); });
  show("zeros_0d", [] { return zeros({}); });
  show("ones_int32", [] { return ones({2}, kInt32); });
  show("ones_options", [] { return ones({2}, TensorOptions().dtype(kFloat64).device(kCPU)); });
  show("full_float", [] { return full({2}, 1.5); });
  show("full_int", [] { return full({2}, 3); });
  show("full_bool", [] { return full({2}, true); });
  show("full_dtype", [] { return full({2, 2}, 3, kFloat64); });
  show("arange_int", [] { return arange(5); });
  show("arange_double", [] { return arange(5.0); });
  show("arange_step", [] { return arange(1, 10, 3); });
  show("arange_fraction", [] { return arange(0.0, 1.0, 0.25); });
  show("arange_dtype", [] { return arange(4, kFloat64); });
  show("tensor_ints", [] { return tensor({1, 2, 3}); });
  show("tensor_doubles", [] { return tensor({1.5, 2.5}); });
  show("tensor_bools", [] { return tensor({true, false}); });
  show("tensor_nested", [] { return tensor({{1, 2}, {3, 4}}); });
  show("tensor_scalar", [] { return tensor(3.5); });
  show("tensor_dtype", [] { return tensor({1, 2}, kFloat32); });
  show("empty_sizes", [] { return empty({0, 3}); });
  const Tensor x = tensor({{1.5, -2.0}, {0.25, 4.0}});
  show("zeros_like", [&] { return zeros_like(x); });
  show("ones_like_int", [&] { return ones_like(x, kInt64); });
  show("full_like", [&] { return full_like(x, 7); });
  show("empty_like_sizes", [&] { return empty_like(x).fill_(1); });
}

}  // namespace

int main() {
  peer::Generator generator(1);
  std::vector<Tensor> inputs, others;
  for (const NamedDtype& d : kDtypes) inputs.push_back(peer::random(generator, {7}, d.dtype));
  for (const NamedDtype& d : kDtypes) others.push_back(peer::random(generator, {7}, d.dtype));

  for (size_t a = 0; a < kDtypes.size(); ++a) {
    for (size_t b = 0; b < kDtypes.size(); ++b) {
      const std::string pair = kDtypes[a].name + "," + kDtypes[b].name;
      binary_ops(pair, inputs[a], others[b]);
      // A 0-d tensor takes part in promotion only by its category (ATen's rule).
      binary_ops("0d/" + pair, inputs[a], others[b][2]);
      binary_ops("0d_first/" + pair, inputs[a][1], others[b]);
      binary_ops("both_0d/" + pair, inputs[a][3], others[b][4]);
      in_place_ops(pair, inputs[a], others[b]);
      in_place_ops("0d/" + pair, inputs[a], others[b][0]);
    }
    scalar_ops(kDtypes[a].name, inputs[a]);
    scalar_ops("0d/" + kDtypes[a].name, inputs[a][5]);
    unary_ops(kDtypes[a].name, inputs[a]);
  }

  const Tensor condition = peer::random(generator, {7}, kBool);
  show("where", [&] { return where(condition, inputs[0], inputs[1]); });
  show("where_int_float", [&] { return where(condition, inputs[3], inputs[0]); });
  show("where_scalar_other", [&] { return where(condition, inputs[0], 0.5); });
  show("where_scalar_self", [&] { return where(condition, 2, inputs[3]); });
  show("where_scalars", [&] { return where(condition, 1.5, 2.5); });
  show("where_int_condition", [&] { return where(inputs[3], inputs[0], inputs[1]); });
  show("sub_alpha", [&] { return sub(inputs[0], inputs[1], 3); });
  show("add_scalar_alpha", [&] { return add(inputs[2], 2, 3); });
  show("mul_scalar", [&] { return mul(inputs[2], 1.5); });
  show("div_scalar", [&] { return div(inputs[3], 4); });
  show("clamp_tensors", [&] { return inputs[0].clamp(others[0], others[0] + 1); });
  show("eq_scalar", [&] { return eq(inputs[3], 2); });
  show("lt_scalar", [&] { return lt(inputs[0], 0.0); });
  show("gt_scalar", [&] { return gt(inputs[2], 1); });
  show("le_scalar", [&] { return le(inputs[1], -0.5); });
  // Rounding ties go to even; division and remainder at the signs' corners.
  const Tensor halves = tensor({0.5, 1.5, 2.5, -0.5, -2.5, 3.5, -0.0});
  show("round_halves", [&] { return round(halves); });
  show("round_halves_float", [&] { return halves.to(kFloat32).round(); });
  const Tensor dividends = tensor({7, -7, 7, -7, 0, 6}), divisors = tensor({2, 2, -2, -2, 3, -3});
  show("remainder_signs", [&] { return remainder(dividends, divisors); });
  show("fmod_signs", [&] { return fmod(dividends, divisors); });
  show("floor_divide_signs", [&] { return floor_divide(dividends, divisors); });
  show("floor_divide_signs_double",
       [&] { return floor_divide(dividends.to(kFloat64), divisors.to(kFloat64)); });
  show("remainder_signs_double",
       [&] { return remainder(dividends.to(kFloat64) + 0.5, divisors.to(kFloat64)); });
  show("remainder_zero_int", [&] { return remainder(dividends, 0); });
  show("floor_divide_zero_double", [&] { return floor_divide(dividends.to(kFloat64), 0.0); });
  show("clamp_min_tensor", [&] { return clamp_min(inputs[0], others[0]); });
  show("clamp_max_int_double", [&] { return clamp_max(inputs[3], 0.5); });
  factories();
}
