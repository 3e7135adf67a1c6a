// Where the batched API hands examples to other code: an op with no batching rule run once per
// example (vb::per_example), the stacked arguments and results of a user's batching rule
// (vb::stacked, vb::unstacked), and the overlap checks that send a loop down its per-example
// path (vb::internal_overlap, vb::any_overlap, vb::unsafe_overlap).
#include "batched_internal.hpp"

#include <vmap/profile.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <mutex>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace vmap::batched {

// --- fallback ----------------------------------------------------------------------------

Value per_example(const char* name, const std::function<Tensor(std::vector<Tensor>)>& f,
                  std::vector<Value> args) {
  static std::mutex warned_mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard lock(warned_mutex);
    if (warned.insert(name).second)
      std::cerr << "clang-vmap: warning: no batching rule for '" << name
                << "'; it runs once per example\n";
  }
  const int64_t levels = active_levels();
  std::vector<int64_t> full;
  for (int64_t k = 0; k < levels; ++k) full.push_back(level_size(k));
  const int64_t count = std::accumulate(full.begin(), full.end(), int64_t{1}, std::multiplies<>());
  if (count == 0) return Value();
  std::vector<Tensor> flat;
  for (const Value& arg : args) {
    Tensor aligned = arg.aligned(levels);
    std::vector<int64_t> sizes = full;
    for (int64_t d = levels; d < aligned.dim(); ++d) sizes.push_back(aligned.size(d));
    std::vector<int64_t> merged{count};
    merged.insert(merged.end(), sizes.begin() + levels, sizes.end());
    flat.push_back(aligned.expand(sizes).reshape(merged));
  }
  std::vector<Tensor> results;
  for (int64_t k = 0; k < count; ++k) {
    std::vector<Tensor> slices;
    for (const Tensor& tensor : flat) slices.push_back(tensor.select(0, k));
    results.push_back(f(std::move(slices)));
  }
  Tensor stacked = vmap::stack(results);
  std::vector<int64_t> sizes = full;
  for (int64_t d = 1; d < stacked.dim(); ++d) sizes.push_back(stacked.size(d));
  return Value(stacked.reshape(sizes), levels, false);
}

// --- user batching rules -------------------------------------------------------------------

namespace {

std::vector<int64_t> active_level_sizes() {
  std::vector<int64_t> sizes;
  for (int64_t k = 0; k < active_levels(); ++k) sizes.push_back(level_size(k));
  return sizes;
}

// "[2, 3]"
std::string shape_string(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (std::size_t d = 0; d < sizes.size(); ++d)
    text += (d == 0 ? "" : ", ") + std::to_string(sizes[d]);
  return text + "]";
}

int64_t product(const std::vector<int64_t>& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
}

}  // namespace

Tensor stacked(const Value& value) {
  const std::vector<int64_t> full = active_level_sizes();
  const auto levels = static_cast<int64_t>(full.size());
  Tensor aligned = value.aligned(levels);
  std::vector<int64_t> sizes = full;
  for (int64_t d = levels; d < aligned.dim(); ++d) sizes.push_back(aligned.size(d));
  Tensor expanded = aligned.expand(sizes);
  if (levels == 1) return expanded;  // a view: the loop-invariant ones are not copied
  std::vector<int64_t> merged{product(full)};
  merged.insert(merged.end(), sizes.begin() + levels, sizes.end());
  return expanded.reshape(merged);
}

Value unstacked(const char* function, const Tensor& results, std::optional<Dtype> cpp_scalar) {
  const std::vector<int64_t> full = active_level_sizes();
  const int64_t count = product(full);
  if (!results.defined() || results.dim() == 0 || results.size(0) != count)
    throw Error(std::string("vmap: the batched function '") + function + "' returned " +
                (results.defined() ? "a tensor of shape " + shape_string(results.sizes().vec())
                                   : std::string("an undefined tensor")) +
                ", but the batch has " + std::to_string(count) +
                " examples: it must return their results stacked along dim 0");
  if (cpp_scalar && results.dim() != 1)
    throw Error(std::string("vmap: the batched function '") + function +
                "' stands for a function returning a number, so it must return a 1-d tensor "
                "of the examples' numbers, not one of shape " + shape_string(results.sizes().vec()));
  std::vector<int64_t> sizes = full;
  for (int64_t d = 1; d < results.dim(); ++d) sizes.push_back(results.size(d));
  Tensor physical = results.reshape(sizes);
  if (cpp_scalar) physical = physical.to(*cpp_scalar);
  return Value(physical, static_cast<int64_t>(full.size()), cpp_scalar.has_value());
}

// --- aliasing ------------------------------------------------------------------------------

namespace {

// Sufficient for distinct elements: sorted by stride, each dim's stride passes the extent of
// the dims below it. Strides that fail it may still not overlap; the guard then runs the loop
// as written, which is always right.
bool may_overlap_itself(const Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // |stride|, size
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1) dims.emplace_back(std::abs(t.stride(d)), t.size(d));
  std::sort(dims.begin(), dims.end());
  int64_t extent = 1;  // elements spanned by the dims so far
  for (const auto& [stride, size] : dims) {
    if (stride < extent) return true;
    extent = stride * (size - 1) + extent;
  }
  return false;
}

}  // namespace

// True sends the loop down its per-example path, which the profile counts (and the first
// time warns of).
bool internal_overlap(const Tensor& out) {
  const bool overlap = out.defined() && may_overlap_itself(out);
  if (overlap) profile::detail::note_overlap_fallback();
  return overlap;
}

bool any_overlap(const Tensor& out, const Tensor& in) {
  if (internal_overlap(out)) return true;
  const bool overlap = out.defined() && in.defined() && vmap::detail::overlaps(out, in);
  if (overlap) profile::detail::note_overlap_fallback();
  return overlap;
}

bool unsafe_overlap(const Tensor& out, const Tensor& in) {
  if (internal_overlap(out)) return true;
  if (!out.defined() || !in.defined()) return false;
  const bool same_view = out.raw_data() == in.raw_data() && out.dtype() == in.dtype() &&
                         out.sizes() == in.sizes() && out.strides() == in.strides();
  const bool overlap = !same_view && vmap::detail::overlaps(out, in);
  if (overlap) profile::detail::note_overlap_fallback();
  return overlap;
}

}  // namespace vmap::batched
