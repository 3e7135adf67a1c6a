// <vmap/vmap.hpp> for code built against LibTorch instead of the vmap runtime: SPEC
// section 4's names, each bound to LibTorch's entity of the same name and meaning. With this
// directory first on the include path, a source written against SPEC section 4 (a sample, a
// peer test program) compiles unchanged against LibTorch: the samples' "same loop in
// LibTorch" and the peer tests (tests/peer) are that.
//
// Note [Why using-declarations, not `using namespace torch`]
// torch:: and at:: both declare the factories (torch::zeros wraps at::zeros), so code
// that sees both namespaces through using-directives finds two `zeros` and the call is
// ambiguous. Naming each SPEC entity once keeps `using namespace vmap;` unambiguous and
// exports exactly SPEC section 4, as the real runtime does.
#pragma once

#include <torch/types.h>

#include <ostream>
#include <vector>

namespace vmap {

using at::Tensor;
using TensorList = std::vector<Tensor>;
using at::TensorOptions;
using Dtype = at::ScalarType;
using at::Device;
using Error = c10::Error;

using at::kBool;
using at::kDouble;
using at::kFloat;
using at::kInt;
using at::kLong;
using torch::kFloat32;
using torch::kFloat64;
using torch::kInt32;
using torch::kInt64;
using torch::kF32;
using torch::kF64;
using torch::kI32;
using torch::kI64;
// Tensor::index / index_put_'s index kinds (SPEC section 7)
namespace indexing = at::indexing;
inline constexpr at::DeviceType kCPU = at::kCPU;
inline constexpr at::DeviceType kCUDA = at::kCUDA;

// --- pointwise
using at::abs;
using at::add;
using at::clamp;
using at::div;
using at::logical_and;
using at::logical_not;
using at::logical_or;
using at::maximum;
using at::minimum;
using at::mul;
using at::neg;
using at::pow;
using at::sub;
using at::where;
// the ops of the runtime's pointwise op list (Note [Pointwise op list]), by relative path:
// this directory stands in for the runtime's include directory
#define VMAP_UNARY_OP(name, Functor, domain, simd, cost) using at::name;
#define VMAP_BINARY_OP(name, Functor, domain) using at::name;
#include "../../../runtime/include/vmap/detail/pointwise_ops.def"

// --- reductions
using at::all;
using at::amax;
using at::amin;
using at::any;
using at::argmax;
using at::argmin;
using at::log_softmax;
using at::mean;
using at::softmax;
using at::sum;
// scans, statistics, masking (SPEC section 6)
using at::cumprod;
using at::cumsum;
using at::gelu;
using at::lerp;
using at::softplus;
using at::logsumexp;
using at::masked_fill;
using at::norm;
using at::std;
using at::var;
// sorting (SPEC section 6)
using at::argsort;
using at::one_hot;
using at::sort;
using at::topk;

// --- linear algebra, indexing
using at::bmm;
using at::dot;
using at::gather;
using at::index_select;
using at::linear;
using at::matmul;
using at::mm;
using at::mv;

// --- shapes
using at::cat;
using at::flatten;
using at::movedim;
using at::narrow;
using at::permute;
using at::reshape;
using at::squeeze;
using at::stack;
using at::transpose;
using at::tril;
using at::triu;
using at::unsqueeze;
// ATen has `expand` as a method only; SPEC also has the free function.
inline Tensor expand(const Tensor& self, at::IntArrayRef sizes) { return self.expand(sizes); }

// --- factories: torch:: ones, what a LibTorch user calls; the *_like ones from at::, which
// argument-dependent lookup on a Tensor finds as well (two different entities of one
// signature would make the call ambiguous)
using at::empty_like;
using at::full_like;
using at::manual_seed;
using at::ones_like;
using at::zeros_like;
using torch::arange;
using torch::empty;
using torch::from_blob;
using torch::full;
using torch::ones;
using torch::rand;
using torch::randint;
using torch::randn;
using torch::tensor;
using torch::zeros;

// --- checks (operator<< for Tensor is at::'s, found by argument-dependent lookup)
using at::allclose;
using at::equal;

// ATen has `~` for logical negation of bool tensors; SPEC spells it `!`.
inline Tensor operator!(const Tensor& self) { return self.logical_not(); }

}  // namespace vmap
