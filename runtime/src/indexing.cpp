// LibTorch's habits with LibTorch 1.13's semantics: accessor<T, N>()'s checks, and
// multi-dim indexing (Tensor::index / index_put_ with vmap::indexing, ATen's
// TensorIndexing.h): the basic indices (integers, Slice, None, Ellipsis) make a view, and
// one long or bool tensor index then reads or writes positions of it.
#include "internal.hpp"

#include <algorithm>
#include <span>
#include <string_view>

namespace vmap {

namespace indexing {
TensorIndex::TensorIndex(const char* ellipsis) : kind_(Kind::Ellipsis) {
  if (std::string_view(ellipsis) != "...")
    detail::fail("index", "expected \"...\" to represent an ellipsis index, got \"", ellipsis,
                 "\"");
}
}  // namespace indexing

namespace detail {
void check_accessor(const Tensor& tensor, Dtype dtype, size_t dims) {
  const TensorImpl& impl = impl_of(tensor, "accessor");
  if (impl.sizes.size() != dims)
    fail("accessor", "expected ", dims, " dims but tensor has ", impl.sizes.size());
  if (impl.dtype != dtype)
    fail("accessor", "expected scalar type ", impl.dtype, " but requested ", dtype);
  // LibTorch would read device memory from the host; a CUDA tensor is brought over first.
  if (impl.device() != kCPU)
    fail("accessor", "the tensor is on ", impl.device(), "; an accessor reads CPU memory "
         "(call .to(kCPU) first)");
}
}  // namespace detail

namespace {

using detail::Dims;
using detail::fail;
using detail::impl_of;
using indexing::TensorIndex;
using Kind = TensorIndex::Kind;
using Indices = std::span<const TensorIndex>;

// x.index({..., Slice(start, stop, step), ...}) on `dim`: a view, Python's clamping rules.
Tensor slice(const char* op, const Tensor& self, int64_t dim, const indexing::Slice& range) {
  const detail::TensorImpl& impl = impl_of(self, op);
  if (range.step() <= 0) fail(op, "slice step must be positive, got ", range.step());
  const int64_t size = impl.sizes[dim];
  int64_t start = range.start();
  int64_t stop = range.stop();
  if (start < 0) start += size;
  if (stop < 0) stop += size;
  start = std::clamp<int64_t>(start, 0, size);
  stop = std::clamp<int64_t>(stop, start, size);
  Dims sizes = impl.sizes;
  Dims strides = impl.strides;
  sizes[dim] = (stop - start + range.step() - 1) / range.step();
  strides[dim] *= range.step();
  return detail::make_view(self, sizes, strides, impl.offset + start * impl.strides[dim]);
}

// The basic indices applied (a view of self), and the tensor index among them, which
// indexes the view from dim `position` (as ATen's applySlicing, it advances the dim by one
// even for a multi-dim bool mask).
struct Sliced {
  Tensor view;
  Tensor tensor;  // undefined: no tensor index
  int64_t position = 0;
};

Sliced apply_basic(const char* op, const Tensor& self, Indices indices) {
  const int64_t rank = self.dim();
  // As ATen: an empty list is refused, and each Ellipsis skips the dims the others leave.
  if (indices.empty())
    fail(op, "passing an empty index list to Tensor::", op, "() is not valid syntax");
  int64_t specified = 0;
  for (const TensorIndex& index : indices) {
    switch (index.kind()) {
      case Kind::Integer:
      case Kind::Slice: ++specified; break;
      case Kind::Tensor:
        specified += index.tensor().dtype() == kBool ? index.tensor().dim() : 1;
        break;
      case Kind::Ellipsis:
      case Kind::None: break;
    }
  }
  if (specified > rank) fail(op, "too many indices for tensor of dimension ", rank);

  Sliced out{self, Tensor(), 0};
  int64_t dim = 0;
  for (const TensorIndex& index : indices) {
    switch (index.kind()) {
      case Kind::Integer: out.view = out.view.select(dim, index.integer()); break;
      case Kind::Slice: out.view = slice(op, out.view, dim++, index.slice()); break;
      case Kind::None: out.view = out.view.unsqueeze(dim++); break;
      case Kind::Ellipsis: dim += rank - specified; break;
      case Kind::Tensor: {
        const Tensor& tensor = index.tensor();
        impl_of(tensor, op);
        if (out.tensor.defined())
          fail(op, "only one tensor index is supported (LibTorch broadcasts several together)");
        if (tensor.dtype() != kInt64 && tensor.dtype() != kBool)
          fail(op, "tensors used as indices must be long or bool tensors, got ", tensor.dtype());
        out.tensor = tensor;
        out.position = dim++;
        break;
      }
    }
  }
  return out;
}

// The positions a tensor index picks along the dims [position, position + dims) of `view`,
// those dims flattened row-major: in range, non-negative, in index order; and the shape the
// result has in their place (the long index's shape, or [count] for a bool mask).
struct Positions {
  std::vector<int64_t> flat;
  std::vector<int64_t> shape;
  int64_t dims = 1;
};

Positions positions(const char* op, const Tensor& view, const Tensor& index, int64_t position) {
  const detail::IntList sizes = view.sizes();
  const Tensor host = index.to(kCPU).contiguous();
  Positions out;
  if (index.dtype() == kBool) {
    out.dims = index.dim();
    if (out.dims == 0) fail(op, "a 0-dim bool tensor index is not supported");
    for (int64_t k = 0; k < out.dims; ++k) {
      if (position + k >= static_cast<int64_t>(sizes.size()) ||
          index.size(k) != sizes[position + k])
        fail(op, "the shape of the mask ", detail::shape_str(index.sizes()), " at index ", k,
             " does not match the shape of the indexed tensor ", detail::shape_str(sizes),
             " at index ", position + k);
    }
    const bool* mask = host.data_ptr<bool>();
    for (int64_t k = 0; k < host.numel(); ++k)
      if (mask[k]) out.flat.push_back(k);
    out.shape = {static_cast<int64_t>(out.flat.size())};
    return out;
  }
  if (position >= static_cast<int64_t>(sizes.size()))
    fail(op, "too many indices for tensor of dimension ", sizes.size());
  const int64_t size = sizes[position];
  const int64_t* values = host.data_ptr<int64_t>();
  for (int64_t k = 0; k < host.numel(); ++k) {
    if (values[k] < -size || values[k] >= size)
      fail(op, "index ", values[k], " is out of bounds for dimension ", position, " with size ",
           size);
    out.flat.push_back(values[k] < 0 ? values[k] + size : values[k]);
  }
  out.shape = index.sizes().vec();
  return out;
}

// `view`'s sizes with [position, position + dims) replaced by `middle`.
std::vector<int64_t> replace_dims(detail::IntList sizes, int64_t position, int64_t dims,
                                  detail::IntList middle) {
  std::vector<int64_t> out(sizes.begin(), sizes.begin() + position);
  out.insert(out.end(), middle.begin(), middle.end());
  out.insert(out.end(), sizes.begin() + position + dims, sizes.end());
  return out;
}

Tensor index(const Tensor& self, Indices indices) {
  const char* op = "index";
  const detail::OpName op_name(op);
  impl_of(self, op);
  Sliced sliced = apply_basic(op, self, indices);
  if (!sliced.tensor.defined()) return sliced.view;
  const Positions picked = positions(op, sliced.view, sliced.tensor, sliced.position);
  const int64_t count = static_cast<int64_t>(picked.flat.size());
  const Tensor flat_index =
      from_blob(const_cast<int64_t*>(picked.flat.data()), {count}, kInt64).to(self.device());
  const Tensor merged =
      sliced.view.flatten(sliced.position, sliced.position + picked.dims - 1);
  return merged.index_select(sliced.position, flat_index)
      .reshape(replace_dims(sliced.view.sizes(), sliced.position, picked.dims, picked.shape));
}

// `value` without its leading size-1 dims (ATen's set_item writes `x[0] = ones({1, 3})`).
Tensor strip_leading_ones(const Tensor& value) {
  int64_t leading = 0;
  while (leading < value.dim() && value.size(leading) == 1) ++leading;
  if (leading == 0) return value;
  const std::vector<int64_t> sizes = value.sizes().vec();
  return value.reshape(detail::IntList(sizes.data() + leading, sizes.size() - leading));
}

Tensor& index_put(const Tensor& self, Indices indices, const Tensor& value) {
  const char* op = "index_put_";
  const detail::OpName op_name(op);
  impl_of(self, op);
  impl_of(value, op);
  Sliced sliced = apply_basic(op, self, indices);
  const Tensor source = strip_leading_ones(value);
  if (!sliced.tensor.defined()) {
    sliced.view.copy_(source);
    return const_cast<Tensor&>(self);
  }
  if (value.dtype() != self.dtype())
    fail(op, "index put requires the source and destination dtypes match, got ", self.dtype(),
         " for the destination and ", value.dtype(), " for the source");
  const Positions picked = positions(op, sliced.view, sliced.tensor, sliced.position);
  const int64_t position = sliced.position;
  const int64_t count = static_cast<int64_t>(picked.flat.size());
  const std::vector<int64_t> result_sizes =
      replace_dims(sliced.view.sizes(), position, picked.dims, picked.shape);
  if (!detail::broadcastable_to(source.sizes(), result_sizes))
    fail(op, "shape mismatch: value tensor of shape ", detail::shape_str(value.sizes()),
         " cannot be broadcast to indexing result of shape ", detail::shape_str(result_sizes));
  // One row of the value per picked position, written through a view of that position.
  const Tensor rows = source.expand(result_sizes)
                          .reshape(replace_dims(sliced.view.sizes(), position, picked.dims,
                                                {count}));
  const std::vector<int64_t> picked_sizes(sliced.view.sizes().begin() + position,
                                          sliced.view.sizes().begin() + position + picked.dims);
  int64_t picked_numel = 1;
  for (int64_t size : picked_sizes) picked_numel *= size;
  for (int64_t n = 0; n < count; ++n) {
    Tensor target = sliced.view;
    int64_t rest = picked.flat[n];
    int64_t stride = picked_numel;
    for (int64_t size : picked_sizes) {
      stride /= size;
      target = target.select(position, rest / stride);
      rest %= stride;
    }
    target.copy_(rows.select(position, n));
  }
  return const_cast<Tensor&>(self);
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return vmap::index(*this, Indices(indices.begin(), indices.size()));
}
Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  return vmap::index(*this, indices);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) const {
  return index_put(*this, Indices(indices.begin(), indices.size()), value);
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, const Tensor& value) const {
  return index_put(*this, indices, value);
}
Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, Scalar value) const {
  return index_put_(std::vector<TensorIndex>(indices), value);
}
Tensor& Tensor::index_put_(const std::vector<TensorIndex>& indices, Scalar value) const {
  // As ATen's set_item: the number becomes a 0-d tensor of self's dtype and device.
  const detail::OpName op_name("index_put_");
  return index_put(*this, indices, full({}, value, options()));
}

}  // namespace vmap
