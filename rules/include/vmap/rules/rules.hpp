// The batching rules, one source file per family (rules/src/<family>.cpp).
//
// Typed rules have functorch's signature: each tensor argument followed by its batch dim,
// returning the batched result and its batch dim. Pointwise rules take TensorArg instead,
// because promotion needs to know which operands were C++ scalars (Note [Promotion tiers]).
// Each family also exposes `*_rule(op, args)` adapters that registry.cpp maps RuleIds to;
// generic ones run the op itself (call_reference) on batched physical tensors.
#pragma once

#include <vmap/rules/registry.hpp>

#include <cstddef>
#include <span>

namespace vmap::rules {

using RuleFunction = BatchedResult (*)(std::size_t op, const CallArgs& args);

// An unbatched tensor argument.
inline Arg plain(Tensor tensor) { return TensorArg{std::move(tensor), std::nullopt}; }
// Runs table entry `op` on `args` with some positions replaced (tensors by plain(t)).
Tensor call_with(std::size_t op, const CallArgs& args,
                 std::initializer_list<std::pair<std::size_t, Arg>> replacements);
// Same op name and form with other parameter kinds (e.g. the dim form of sum()).
std::size_t sibling_op(std::size_t op, std::initializer_list<ArgKind> params);

// --- batched_value.cpp (Note [One pointwise path]): the pointwise ops (unary, binary, where,
// clamp) batched by the batched API's own pointwise path, the one rewritten code takes.
BatchedResult pointwise_rule(std::size_t op, const CallArgs& args);

// --- unary.cpp
BatchedResult convert_rule(std::size_t op, const CallArgs& args);
BatchedResult metadata_rule(std::size_t op, const CallArgs& args);
BatchedResult item_rule(std::size_t op, const CallArgs& args);
BatchedResult refused_rule(std::size_t op, const CallArgs& args);

// --- binary.cpp
// Moves batch dims to the front, pads logical ranks, and casts the operands listed in
// `promoted` to their logical result type (ATen's tiers on per-example ranks).
std::vector<Tensor> align_pointwise(std::span<const TensorArg> operands,
                                    std::span<const std::size_t> promoted);
Dtype logical_result_type(std::span<const TensorArg> operands,
                          std::span<const std::size_t> promoted);
BatchedResult masked_fill_rule(std::size_t op, const CallArgs& args);
BatchedResult lerp_rule(std::size_t op, const CallArgs& args);

// --- reduce.cpp
BatchedResult reduce_all_rule(std::size_t op, const CallArgs& args);
BatchedResult reduce_dim_rule(std::size_t op, const CallArgs& args);
BatchedResult reduce_dims_rule(std::size_t op, const CallArgs& args);
BatchedResult compare_all_rule(std::size_t op, const CallArgs& args);

// --- views.cpp
// Generic: batch dim to the front, every dim argument wrapped and shifted by one.
BatchedResult shift_dims_rule(std::size_t op, const CallArgs& args);
BatchedResult squeeze_all_batch_rule(const Tensor& x, BatchDim x_bdim);
BatchedResult expand_batch_rule(const Tensor& x, BatchDim x_bdim, detail::IntList sizes);
BatchedResult reshape_batch_rule(const Tensor& x, BatchDim x_bdim, detail::IntList sizes);
BatchedResult t_batch_rule(const Tensor& x, BatchDim x_bdim);
BatchedResult permute_batch_rule(const Tensor& x, BatchDim x_bdim, detail::IntList dims);
BatchedResult flatten_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t start, int64_t end);
BatchedResult cat_batch_rule(std::span<const BatchedResult> tensors, int64_t dim);
BatchedResult stack_batch_rule(std::span<const BatchedResult> tensors, int64_t dim);
BatchedResult select_rule(std::size_t op, const CallArgs& args);
BatchedResult narrow_rule(std::size_t op, const CallArgs& args);
BatchedResult squeeze_all_rule(std::size_t op, const CallArgs& args);
BatchedResult expand_rule(std::size_t op, const CallArgs& args);
BatchedResult expand_as_rule(std::size_t op, const CallArgs& args);
BatchedResult reshape_rule(std::size_t op, const CallArgs& args);
BatchedResult t_rule(std::size_t op, const CallArgs& args);
BatchedResult permute_rule(std::size_t op, const CallArgs& args);
BatchedResult flatten_rule(std::size_t op, const CallArgs& args);
BatchedResult cat_rule(std::size_t op, const CallArgs& args);
BatchedResult stack_rule(std::size_t op, const CallArgs& args);

// --- index.cpp
// x.select(dim, index) with a per-example index (index: int64, logical 0-d).
BatchedResult select_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim, const Tensor& index,
                                BatchDim index_bdim);
BatchedResult narrow_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim, const Tensor& start,
                                BatchDim start_bdim, int64_t length);
BatchedResult index_select_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim,
                                      const Tensor& index, BatchDim index_bdim);
BatchedResult gather_batch_rule(const Tensor& x, BatchDim x_bdim, int64_t dim, const Tensor& index,
                                BatchDim index_bdim);
BatchedResult index_select_rule(std::size_t op, const CallArgs& args);
BatchedResult gather_rule(std::size_t op, const CallArgs& args);

// --- linalg.cpp: each a single (batched) GEMM call, never a loop over examples.
BatchedResult matmul_batch_rule(const Tensor& x, BatchDim x_bdim, const Tensor& y, BatchDim y_bdim);
BatchedResult linear_batch_rule(const Tensor& x, BatchDim x_bdim, const Tensor& weight,
                                BatchDim weight_bdim, const TensorArg* bias);
BatchedResult matmul_rule(std::size_t op, const CallArgs& args);
BatchedResult mm_rule(std::size_t op, const CallArgs& args);
BatchedResult mv_rule(std::size_t op, const CallArgs& args);
BatchedResult bmm_rule(std::size_t op, const CallArgs& args);
BatchedResult dot_rule(std::size_t op, const CallArgs& args);
BatchedResult linear_rule(std::size_t op, const CallArgs& args);

// --- dims.cpp
BatchedResult along_dim_rule(std::size_t op, const CallArgs& args);
BatchedResult topk_rule(std::size_t op, const CallArgs& args);
BatchedResult one_hot_rule(std::size_t op, const CallArgs& args);
BatchedResult triangular_rule(std::size_t op, const CallArgs& args);

// --- factory.cpp
BatchedResult like_factory_rule(std::size_t op, const CallArgs& args);
BatchedResult full_like_rule(std::size_t op, const CallArgs& args);
BatchedResult loop_invariant_rule(std::size_t op, const CallArgs& args);
BatchedResult full_rule(std::size_t op, const CallArgs& args);
BatchedResult tensor_literal_rule(std::size_t op, const CallArgs& args);

// --- inplace.cpp: the destination (argument 0) must be batched when the value is.
BatchedResult copy_into_rule(std::size_t op, const CallArgs& args);
BatchedResult fill_into_rule(std::size_t op, const CallArgs& args);
BatchedResult compound_assign_rule(std::size_t op, const CallArgs& args);

}  // namespace vmap::rules
