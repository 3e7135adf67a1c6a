// Shape ops that copy: cat and stack (with dtype promotion, copying through the elementwise
// engine's copy_), and triu / tril (a direct kernel over rows of the last two dims).
#include "internal.hpp"

#include <algorithm>
#include <vector>

namespace vmap {
namespace detail {
namespace {

// LibTorch still accepts 1-d empty tensors in cat next to tensors of any shape, and skips them.
bool skipped_by_cat(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

template <bool upper>
Tensor triangle(const char* op, const Tensor& self, int64_t diagonal) {
  const TensorImpl& impl = impl_of(self, op);
  const int64_t rank = self.dim();
  if (rank < 2) fail(op, "input tensor must have at least 2 dimensions, but got ", self.sizes());
  const int64_t rows = impl.sizes[rank - 2], cols = impl.sizes[rank - 1];
  if (impl.device() != kCPU) {
    // One where() on the device, its [rows, cols] mask made here: kept where j - i >= diagonal
    // (triu) or j - i <= diagonal (tril).
    const Tensor offsets = arange(cols).unsqueeze(0) - arange(rows).unsqueeze(1);
    const Tensor kept = upper ? offsets >= diagonal : offsets <= diagonal;
    return where(kept.to(impl.device()), self, scalar_tensor(0, self.dtype()));
  }
  Tensor out = empty_tensor(self.sizes(), self.dtype(), self.device());
  if (self.numel() == 0) return out;
  const int64_t row_stride = impl.strides[rank - 2], col_stride = impl.strides[rank - 1];
  const int64_t matrices = self.numel() / (rows * cols);
  visit_dtype(self.dtype(), [&]<class T>(std::type_identity<T>) {
    const T* in = impl.data_as<T>();
    T* result = impl_of(out).data_as<T>();
    parallel_for(matrices * rows, cols, [&](int64_t begin, int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        const int64_t i = task % rows;
        int64_t offset = i * row_stride;
        for (int64_t d = rank - 3, rest = task / rows; d >= 0; --d) {
          offset += rest % impl.sizes[d] * impl.strides[d];
          rest /= impl.sizes[d];
        }
        // Kept columns: j - i >= diagonal (triu) or j - i <= diagonal (tril).
        const int64_t bound = std::clamp<int64_t>(i + diagonal + (upper ? 0 : 1), 0, cols);
        const int64_t keep_begin = upper ? bound : 0, keep_end = upper ? cols : bound;
        T* out_row = result + task * cols;
        std::fill(out_row, out_row + keep_begin, T{});
        for (int64_t j = keep_begin; j < keep_end; ++j) out_row[j] = in[offset + j * col_stride];
        std::fill(out_row + keep_end, out_row + cols, T{});
      }
    });
  });
  return out;
}

}  // namespace
}  // namespace detail

using detail::fail;

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  constexpr const char* op = "cat";
  if (tensors.empty()) fail(op, "expected a non-empty list of Tensors");
  const Tensor* reference = nullptr;
  Dtype dtype = tensors.front().dtype();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    detail::impl_of(t, op);
    detail::check_same_device(op, t, tensors.front());
    if (t.dim() == 0)
      fail(op, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    dtype = detail::promote_types(dtype, t.dtype());
    if (!reference && !detail::skipped_by_cat(t)) reference = &t;
  }
  const Device device = tensors.front().device();
  if (!reference) return detail::empty_tensor(detail::IntList{0}, dtype, device, op);
  const int64_t rank = reference->dim();
  const int64_t wrapped = detail::wrap_dim(op, dim, rank);
  std::vector<int64_t> shape = reference->sizes().vec();
  shape[wrapped] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (detail::skipped_by_cat(t)) continue;
    if (t.dim() != rank)
      fail(op, "Tensors must have same number of dimensions: got ", rank, " and ", t.dim());
    for (int64_t d = 0; d < rank; ++d)
      if (d != wrapped && t.size(d) != reference->size(d))
        fail(op, "Sizes of tensors must match except in dimension ", wrapped, ". Expected size ",
             reference->size(d), " but got size ", t.size(d), " for tensor number ", i,
             " in the list.");
    if (__builtin_add_overflow(shape[wrapped], t.size(wrapped), &shape[wrapped]))
      fail(op, "the concatenated size of dim ", wrapped, " overflows");
  }
  // The copies go through copy_, so CUDA tensors concatenate on their device.
  Tensor out = detail::empty_tensor(shape, dtype, device, op);
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (detail::skipped_by_cat(t)) continue;
    out.narrow(wrapped, offset, t.size(wrapped)).copy_(t);
    offset += t.size(wrapped);
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  constexpr const char* op = "stack";
  const detail::OpName op_name(op);  // Note [The op the user called]
  if (tensors.empty()) fail(op, "expected a non-empty list of Tensors");
  const Tensor& first = tensors.front();
  detail::impl_of(first, op);
  const int64_t wrapped = detail::wrap_dim(op, dim, first.dim() + 1);
  std::vector<Tensor> unsqueezed;
  unsqueezed.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    detail::impl_of(tensors[i], op);
    if (tensors[i].sizes() != first.sizes())
      fail(op, "expects each tensor to be equal size, but got ", first.sizes(),
           " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
    unsqueezed.push_back(tensors[i].unsqueeze(wrapped));
  }
  detail::Dims stacked(first.sizes());
  stacked.insert(wrapped, static_cast<int64_t>(tensors.size()));
  detail::checked_numel(op, stacked);  // else cat's error
  return cat(unsqueezed, wrapped);
}

Tensor triu(const Tensor& self, int64_t diagonal) {
  return detail::triangle<true>("triu", self, diagonal);
}
Tensor tril(const Tensor& self, int64_t diagonal) {
  return detail::triangle<false>("tril", self, diagonal);
}

}  // namespace vmap
