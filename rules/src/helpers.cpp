#include <vmap/rules/helpers.hpp>

#include <string>

namespace vmap::rules {

int64_t rank_without_bdim(const Tensor& x, BatchDim bdim) { return x.dim() - (bdim ? 1 : 0); }

Tensor move_bdim_to_front(const Tensor& x, BatchDim bdim) {
  if (!bdim || *bdim == 0) return x;
  return x.movedim(*bdim, 0);
}

Tensor pad_to_logical_rank(const Tensor& x, BatchDim bdim, int64_t logical_rank) {
  const int64_t missing = logical_rank - rank_without_bdim(x, bdim);
  if (missing <= 0) return x;
  Tensor padded = x;
  for (int64_t i = 0; i < missing; ++i) padded = padded.unsqueeze(bdim ? 1 : 0);
  return padded;
}

int64_t wrap_logical_dim(const char* op, int64_t dim, int64_t logical_rank) {
  const int64_t extent = logical_rank == 0 ? 1 : logical_rank;
  if (dim < -extent || dim >= extent)
    throw Error(std::string(op) + ": dim " + std::to_string(dim) + " out of range for a " +
                std::to_string(logical_rank) + "-d tensor");
  return dim < 0 ? dim + extent : dim;
}

std::optional<int64_t> batch_size_of(std::span<const BatchedResult> args) {
  std::optional<int64_t> size;
  for (const auto& [tensor, bdim] : args) {
    if (!bdim) continue;
    const int64_t this_size = tensor.size(*bdim);
    if (size && *size != this_size)
      throw Error("vmap: batched arguments disagree on the batch size (" + std::to_string(*size) +
                  " vs " + std::to_string(this_size) + ")");
    size = this_size;
  }
  return size;
}

Tensor ensure_batched_front(const Tensor& x, BatchDim bdim, int64_t batch_size) {
  if (bdim) return move_bdim_to_front(x, bdim);
  return x.unsqueeze(0).expand(prepend(batch_size, x.sizes()));
}

std::vector<int64_t> logical_sizes(const Tensor& x, BatchDim bdim) {
  std::vector<int64_t> sizes = x.sizes().vec();
  if (bdim) sizes.erase(sizes.begin() + *bdim);
  return sizes;
}

std::vector<int64_t> prepend(int64_t front, detail::IntList rest) {
  std::vector<int64_t> sizes{front};
  sizes.insert(sizes.end(), rest.begin(), rest.end());
  return sizes;
}

}  // namespace vmap::rules
