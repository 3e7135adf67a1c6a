// Views: new sizes/strides/offset over the same storage, never a copy (reshape and flatten
// copy only when no view exists, as in LibTorch).
#include "internal.hpp"

#include <algorithm>
#include <optional>

namespace vmap {
namespace {

using detail::Dims;
using detail::fail;
using detail::impl_of;
using detail::IntList;
using detail::shape_str;
using detail::wrap_dim;

int64_t rank_of(const detail::TensorImpl& impl) { return static_cast<int64_t>(impl.sizes.size()); }

// Resolves one -1 in `shape` against numel. The product of the other sizes is overflow-checked
// before anything divides by it.
Dims infer_size(const char* op, IntList shape, int64_t numel) {
  Dims result(shape);
  std::optional<size_t> inferred;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (inferred) fail(op, "only one dimension can be inferred in shape ", shape_str(shape));
      inferred = d;
      result[d] = 1;
    } else if (shape[d] < 0) {
      fail(op, "invalid shape dimension ", shape[d], " in shape ", shape_str(shape));
    }
  }
  const int64_t product = detail::checked_numel(op, result);
  const bool fits = inferred ? product != 0 && numel % product == 0 : product == numel;
  if (!fits) fail(op, "shape '", shape_str(shape), "' is invalid for input of size ", numel);
  if (inferred) result[*inferred] = numel / product;
  return result;
}

// Strides that let `new_sizes` view memory laid out as (sizes, strides), if any (ATen's
// computeStride: dims are matched in chunks that are contiguous with each other).
std::optional<Dims> view_strides(IntList sizes, IntList strides, IntList new_sizes, int64_t numel) {
  Dims new_strides;
  new_strides.resize(new_sizes.size());
  if (sizes.empty()) {
    std::fill(new_strides.begin(), new_strides.end(), 1);
    return new_strides;
  }
  if (numel == 0) {
    if (sizes == new_sizes) return Dims(strides);
    return detail::contiguous_strides(new_sizes);
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= sizes[tensor_d];
    const bool chunk_ends = tensor_d == 0 || (sizes[tensor_d - 1] != 1 &&
                                              strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
      new_strides[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_sizes[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (tensor_d > 0) {
      chunk_base_stride = strides[tensor_d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

// Normalises a list of dims, rejecting repeats.
Dims wrap_dims(const char* op, IntList dims, int64_t rank) {
  Dims result;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 1)), false);
  for (int64_t dim : dims) {
    const int64_t wrapped = wrap_dim(op, dim, rank);
    if (seen[wrapped]) fail(op, "dim ", dim, " appears multiple times in the list of dims");
    seen[wrapped] = true;
    result.push_back(wrapped);
  }
  return result;
}

}  // namespace

Tensor Tensor::select(int64_t dim, int64_t index) const {
  const auto& impl = impl_of(*this, "select");
  if (impl.sizes.empty()) fail("select", "cannot be applied to a 0-dim tensor");
  dim = wrap_dim("select", dim, rank_of(impl));
  const int64_t size = impl.sizes[dim];
  if (index < -size || index >= size)
    fail("select", "index ", index, " out of range for dim ", dim, " of size ", size);
  if (index < 0) index += size;
  Dims sizes = impl.sizes;
  Dims strides = impl.strides;
  sizes.erase(dim);
  strides.erase(dim);
  return detail::make_view(*this, sizes, strides, impl.offset + index * impl.strides[dim]);
}

Tensor Tensor::operator[](int64_t index) const { return select(0, index); }

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  const auto& impl = impl_of(self, "narrow");
  if (impl.sizes.empty()) fail("narrow", "cannot be applied to a 0-dim tensor");
  dim = wrap_dim("narrow", dim, rank_of(impl));
  const int64_t size = impl.sizes[dim];
  if (start < -size || start > size)
    fail("narrow", "start ", start, " out of range for dim ", dim, " of size ", size);
  if (start < 0) start += size;
  if (length < 0 || length > size - start)  // start + length could overflow
    fail("narrow", "start (", start, ") + length (", length, ") exceeds dimension size (", size,
         ") of dim ", dim);
  Dims sizes = impl.sizes;
  sizes[dim] = length;
  return detail::make_view(self, sizes, impl.strides, impl.offset + start * impl.strides[dim]);
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  const auto& impl = impl_of(self, "unsqueeze");
  dim = wrap_dim("unsqueeze", dim, rank_of(impl) + 1);
  if (rank_of(impl) == detail::max_dims)
    fail("unsqueeze", "at most ", detail::max_dims, " dims are supported");
  Dims sizes = impl.sizes;
  Dims strides = impl.strides;
  const int64_t stride = dim >= rank_of(impl) ? 1 : impl.sizes[dim] * impl.strides[dim];
  sizes.insert(dim, 1);
  strides.insert(dim, stride);
  return detail::make_view(self, sizes, strides, impl.offset);
}

Tensor squeeze(const Tensor& self) {
  const auto& impl = impl_of(self, "squeeze");
  Dims sizes;
  Dims strides;
  for (size_t d = 0; d < impl.sizes.size(); ++d) {
    if (impl.sizes[d] == 1) continue;
    sizes.push_back(impl.sizes[d]);
    strides.push_back(impl.strides[d]);
  }
  return detail::make_view(self, sizes, strides, impl.offset);
}

Tensor squeeze(const Tensor& self, int64_t dim) {
  const auto& impl = impl_of(self, "squeeze");
  dim = wrap_dim("squeeze", dim, rank_of(impl));
  Dims sizes = impl.sizes;
  Dims strides = impl.strides;
  if (!sizes.empty() && sizes[dim] == 1) {
    sizes.erase(dim);
    strides.erase(dim);
  }
  return detail::make_view(self, sizes, strides, impl.offset);
}

Tensor expand(const Tensor& self, IntList target) {
  const detail::OpName op_name("expand");  // Note [The op the user called]
  const auto& impl = impl_of(self, "expand");
  const int64_t rank = rank_of(impl);
  const int64_t new_rank = static_cast<int64_t>(target.size());
  if (new_rank < rank)
    fail("expand", "the number of sizes provided (", new_rank,
         ") must be greater or equal to the number of dimensions in the tensor (", rank, ")");
  Dims sizes;
  Dims strides;
  sizes.resize(new_rank);
  strides.resize(new_rank);
  for (int64_t d = new_rank - 1; d >= 0; --d) {
    const int64_t old_d = d - (new_rank - rank);
    const int64_t old_size = old_d >= 0 ? impl.sizes[old_d] : 1;
    int64_t size = target[d];
    if (size == -1) {
      if (old_d < 0)
        fail("expand", "-1 is not allowed in a leading, non-existing dimension; target ",
             shape_str(target));
      size = old_size;
    }
    if (size < 0) fail("expand", "invalid size ", size, " in target ", shape_str(target));
    if (old_d >= 0 && old_size == size) {
      sizes[d] = size;
      strides[d] = impl.strides[old_d];
      continue;
    }
    if (old_size != 1)
      fail("expand", "the expanded size of the tensor (", size,
           ") must match the existing size (", old_size, ") at non-singleton dimension ", d,
           ".  Target sizes: ", shape_str(target), ".  Tensor sizes: ", shape_str(impl.sizes));
    sizes[d] = size;
    strides[d] = 0;
  }
  detail::checked_numel("expand", sizes);  // the view's numel must not overflow
  return detail::make_view(self, sizes, strides, impl.offset);
}

Tensor Tensor::view(IntList shape) const {
  const detail::OpName op_name("view");  // Note [The op the user called]
  const auto& impl = impl_of(*this, "view");
  const Dims sizes = infer_size("view", shape, impl.numel);
  const auto strides = view_strides(impl.sizes, impl.strides, sizes, impl.numel);
  if (!strides)
    fail("view", "view size ", shape_str(sizes), " is not compatible with input tensor's size ",
         shape_str(impl.sizes), " and stride ", shape_str(impl.strides),
         " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) "
         "instead.");
  return detail::make_view(*this, sizes, *strides, impl.offset);
}

Tensor reshape(const Tensor& self, IntList shape) {
  const detail::OpName op_name("reshape");  // Note [The op the user called]
  const auto& impl = impl_of(self, "reshape");
  const Dims sizes = infer_size("reshape", shape, impl.numel);
  if (auto strides = view_strides(impl.sizes, impl.strides, sizes, impl.numel))
    return detail::make_view(self, sizes, *strides, impl.offset);
  return self.clone().view(sizes);
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const auto& impl = impl_of(self, "transpose");
  const int64_t rank = rank_of(impl);
  dim0 = wrap_dim("transpose", dim0, rank);
  dim1 = wrap_dim("transpose", dim1, rank);
  Dims sizes = impl.sizes;
  Dims strides = impl.strides;
  if (rank > 0) {
    std::swap(sizes[dim0], sizes[dim1]);
    std::swap(strides[dim0], strides[dim1]);
  }
  return detail::make_view(self, sizes, strides, impl.offset);
}

Tensor Tensor::t() const {
  const int64_t rank = static_cast<int64_t>(impl_of(*this, "t").sizes.size());
  if (rank > 2) fail("t", "expects a tensor with <= 2 dimensions, but self is ", rank, "D");
  return vmap::transpose(*this, 0, rank < 2 ? 0 : 1);
}

Tensor permute(const Tensor& self, IntList dims) {
  const auto& impl = impl_of(self, "permute");
  const int64_t rank = rank_of(impl);
  if (static_cast<int64_t>(dims.size()) != rank)
    fail("permute", "number of dims in ", shape_str(dims), " don't match the tensor's ", rank,
         " dims");
  const Dims order = wrap_dims("permute", dims, rank);
  Dims sizes;
  Dims strides;
  for (int64_t d : order) {
    sizes.push_back(impl.sizes[d]);
    strides.push_back(impl.strides[d]);
  }
  return detail::make_view(self, sizes, strides, impl.offset);
}

Tensor movedim(const Tensor& self, IntList source, IntList destination) {
  const int64_t rank = static_cast<int64_t>(impl_of(self, "movedim").sizes.size());
  if (source.size() != destination.size())
    fail("movedim", "invalid source or destination dims: source (", shape_str(source),
         ") and destination (", shape_str(destination), ") must have the same number of elements");
  const Dims from = wrap_dims("movedim", source, rank);
  const Dims to = wrap_dims("movedim", destination, rank);
  if (rank == 0) return self;  // a 0-d tensor's only "dim" (0 or -1) moves onto itself
  // order[d] = which input dim lands at output position d.
  std::vector<int64_t> order(static_cast<size_t>(rank), -1);
  std::vector<bool> moved(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < from.size(); ++i) {
    order[to[i]] = from[i];
    moved[from[i]] = true;
  }
  int64_t next_source = 0;
  for (auto& slot : order) {
    if (slot != -1) continue;
    while (moved[next_source]) ++next_source;
    slot = next_source++;
  }
  return vmap::permute(self, order);
}

Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return movedim(self, IntList(source), IntList(destination));
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  const auto& impl = impl_of(self, "flatten");
  const int64_t rank = rank_of(impl);
  start_dim = wrap_dim("flatten", start_dim, rank);
  end_dim = wrap_dim("flatten", end_dim, rank);
  if (start_dim > end_dim) fail("flatten", "start_dim (", start_dim, ") cannot come after end_dim (", end_dim, ")");
  if (rank == 0) return vmap::reshape(self, {1});
  if (start_dim == end_dim) return self;
  Dims sizes;
  for (int64_t d = 0; d < start_dim; ++d) sizes.push_back(impl.sizes[d]);
  int64_t flat = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) flat *= impl.sizes[d];
  sizes.push_back(flat);
  for (int64_t d = end_dim + 1; d < rank; ++d) sizes.push_back(impl.sizes[d]);
  return vmap::reshape(self, sizes);
}

}  // namespace vmap
