// sort, argsort, topk and one_hot (SPEC section 6), with LibTorch 1.13's results, dtypes and
// errors.
//
// Note [Sorting]
// Every sorting op is one positions kernel: the int64 positions that order each row along the
// dim (a stable sort; NaN counts as larger than every number, as in LibTorch), then the values
// are self.gather(dim, positions). So sort's and topk's values and indices always agree, and the
// batching rules batch the positions alone (the values are a gather, batched as gathers are).
// Ties keep their order, where LibTorch's unstable sort may not (its indices of equal values
// are unspecified). CUDA tensors are sorted on the host: the rows are copied there and the
// positions back (one copy each way); the gather runs on the device.
#include "internal.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace vmap {
namespace {

using detail::fail;

// a before b in an ascending sort: NaN after every number.
template <class T>
bool ascending(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return a < b || (!std::isnan(a) && std::isnan(b));
  else return a < b;
}

// The positions that sort each row of `self` along `dim` (wrapped), int64, self's shape.
Tensor sorted_positions(const Tensor& self, int64_t dim, bool descending) {
  const Tensor rows = self.to(kCPU).movedim(dim, -1).contiguous();
  Tensor positions = empty(rows.sizes().vec(), kInt64);
  const int64_t length = rows.size(-1);
  const int64_t count = length == 0 ? 0 : rows.numel() / length;
  detail::visit_dtype(rows.dtype(), [&]<class T>(std::type_identity<T>) {
    const T* values = rows.data_ptr<T>();
    int64_t* out = positions.data_ptr<int64_t>();
    const int64_t cost = length * (std::bit_width(static_cast<uint64_t>(length)) + 1);
    detail::parallel_for(count, cost, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const T* keys = values + row * length;
        int64_t* order = out + row * length;
        std::iota(order, order + length, int64_t{0});
        std::stable_sort(order, order + length, [&](int64_t a, int64_t b) {
          return descending ? ascending(keys[b], keys[a]) : ascending(keys[a], keys[b]);
        });
      }
    });
  });
  return positions.movedim(-1, dim).contiguous().to(self.device());
}

// (values, indices) of the first `k` positions of each sorted row.
std::tuple<Tensor, Tensor> sorted_prefix(const char* op, const Tensor& self, int64_t dim,
                                         bool descending, std::optional<int64_t> k) {
  detail::impl_of(self, op);
  const int64_t along = detail::wrap_dim(op, dim, self.dim());
  const int64_t length = self.dim() == 0 ? 1 : self.size(along);
  if (k && (*k < 0 || *k > length))
    fail(op, "selected index k out of range (k = ", *k, ", dim ", along, " of size ", length,
         ")");
  if (self.dim() == 0)  // LibTorch: a 0-d tensor is its own sorted row, for k = 0 too
    return {self.clone(), zeros({}, TensorOptions(kInt64).device(self.device()))};
  Tensor positions = sorted_positions(self, along, descending);
  if (k) positions = positions.narrow(along, 0, *k).contiguous();
  return {gather(self, along, positions), positions};
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return sorted_prefix("sort", self, dim, descending, std::nullopt);
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(sorted_prefix("argsort", self, dim, descending, std::nullopt));
}

// `sorted` = false lets LibTorch return the k elements in any order; these stay sorted.
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                bool /*sorted*/) {
  if (detail::impl_of(self, "topk").dtype == kBool) fail("topk", "not implemented for 'Bool'");
  return sorted_prefix("topk", self, dim, largest, k);
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  const detail::OpName op_name("one_hot");  // Note [The op the user called]
  if (detail::impl_of(self, "one_hot").dtype != kInt64)
    fail("one_hot", "is only applicable to index tensor (int64), got ", self.dtype());
  const TensorOptions options = TensorOptions(kInt64).device(self.device());
  std::vector<int64_t> sizes = self.sizes().vec();
  if (self.numel() == 0) {
    if (num_classes == -1) fail("one_hot", "can not infer total number of classes from empty tensor");
    sizes.push_back(num_classes);
    return empty(sizes, options);
  }
  if (self.amin().item<int64_t>() < 0) fail("one_hot", "class values must be non-negative");
  const int64_t largest = self.amax().item<int64_t>();
  if (num_classes == -1) num_classes = largest + 1;
  if (largest >= num_classes)
    fail("one_hot", "class values must be smaller than num_classes (", num_classes,
         "), got ", largest);
  return (self.unsqueeze(-1) == arange(num_classes, options)).to(kInt64);
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return vmap::sort(*this, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return vmap::argsort(*this, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return vmap::topk(*this, k, dim, largest, sorted);
}

}  // namespace vmap
