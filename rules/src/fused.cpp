// The side of compiled fused kernels that does not see the user's lambda (Note [Compiled
// fusion] in include/vmap/fused.hpp), compiled once: the layout of a kernel's operands, the
// walk over the outer dims, the choice of a loop, packing, threads, and the pending nodes.
// The kernel's own loops are reached through its KernelCode.
#include <vmap/fused.hpp>

#include "batched_fused.hpp"
#include "fused_device_program.hpp"

#include <vmap/detail/parallel.hpp>
#include <vmap/detail/promotion.hpp>

#include <algorithm>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>

namespace vmap::batched::detail {

namespace {

constexpr int kFusedMaxDims = vmap_kernel::FusedArgs::kMaxDims;
constexpr std::size_t kFusedMaxOperands = vmap_kernel::FusedArgs::kMaxOperands;  // beyond, the batched ops

// The operands of a compiled kernel over one iteration space: the broadcast physical sizes
// with adjacent dims merged where every operand allows it, each operand's element strides
// over those dims (0 where it broadcasts).
struct FusedLayout {
  int64_t levels = 0;                  // level dims of the result, and the kept example dims
  int64_t kept = 0;                    // leading example dims a reduction keeps (among levels)
  std::vector<int64_t> sizes;          // broadcast physical sizes, levels first
  int64_t level_count = 1;             // product of the level sizes
  int64_t example_count = 1;           // product of the example sizes
  Dtype dtype = kFloat32;              // every operand's
  std::vector<Tensor> operands;        // aligned to `levels`, kept alive
  std::vector<int64_t> dims;           // merged sizes (level and example dims never merged)
  int64_t example_rank = 0;            // how many of `dims` are example dims
  std::vector<std::vector<int64_t>> strides;  // per operand, over `dims`
};

// The layout of `operands` for a compiled kernel, or nullopt when it does not apply (see
// Note [Compiled fusion]). With `every_example`, the level dims are every active level at its
// full size, also where no operand varies (an accumulator adds each example's value). With
// `reduced_dim` (a sum or mean over one example dim), that dim is moved innermost and the
// other example dims are kept, laid out as level dims.
std::optional<FusedLayout> plan_fused(const std::vector<Value>& operands, bool every_example,
                                      std::optional<int64_t> reduced_dim, Device on = kCPU) {
  FusedLayout layout;
  if (every_example) layout.levels = active_levels();
  int64_t rank = 0;
  for (const Value& v : operands) {
    if (!v.defined() || v.is_cpp_scalar() || placed_on(v) != on) return std::nullopt;
    layout.levels = std::max(layout.levels, v.levels());
    rank = std::max(rank, v.dim());
  }
  if (operands.empty() || operands.size() > kFusedMaxOperands ||
      layout.levels + rank > kFusedMaxDims)
    return std::nullopt;
  layout.dtype = Access::physical_dtype(operands.front());
  if (layout.dtype != kFloat32 && layout.dtype != kFloat64) return std::nullopt;
  const int64_t full_rank = layout.levels + rank;
  layout.sizes.assign(static_cast<std::size_t>(full_rank), 1);
  // Every vector at its final capacity at once: their allocations are a fixed cost of each
  // call (a 100x200x10 distance is about 15 us).
  std::vector<std::vector<int64_t>> strides;
  strides.reserve(operands.size());
  layout.operands.reserve(operands.size());
  for (const Value& v : operands) {
    if (Access::physical_dtype(v) != layout.dtype) return std::nullopt;
    // v's own level dims first (the levels it lacks are size 1: not v.aligned(), whose
    // unsqueeze is a TensorImpl and its Dims each call), then the example dims aligned at
    // the end (broadcasting).
    const Tensor& physical = v.physical();  // computes a pending value
    std::vector<int64_t> operand_strides(static_cast<std::size_t>(full_rank), 0);
    const int64_t own_levels = v.levels();
    const int64_t offset = layout.levels + rank - physical.dim();
    for (int64_t d = 0; d < physical.dim(); ++d) {
      const int64_t target = d < own_levels ? d : d + offset;
      const auto t = static_cast<std::size_t>(target);
      const int64_t size = physical.size(d);
      if (size != 1) {
        if (layout.sizes[t] != 1 && layout.sizes[t] != size) return std::nullopt;  // eager raises
        layout.sizes[t] = size;
        operand_strides[t] = physical.stride(d);
      }
    }
    layout.operands.push_back(physical);
    strides.push_back(std::move(operand_strides));
  }
  if (every_example)  // no operand varies along a size-1 level dim: its strides are 0
    for (int64_t d = 0; d < active_levels(); ++d)
      layout.sizes[static_cast<std::size_t>(d)] = level_size(d);
  if (reduced_dim) {
    const int64_t reduced = *reduced_dim < 0 ? *reduced_dim + rank : *reduced_dim;
    if (reduced < 0 || reduced >= rank) return std::nullopt;  // the batched op raises
    // The reduced dim is walked innermost, whatever its place: the dims kept keep their
    // order, which is the result's (a GNN's (gathered * w).sum(0) sums rows of 64 features
    // side by side, as a loop over the 8 neighbours would).
    auto innermost = [&](std::vector<int64_t>& along) {
      const auto at = along.begin() + layout.levels + reduced;
      std::rotate(at, at + 1, along.end());
    };
    innermost(layout.sizes);
    for (std::vector<int64_t>& operand_strides : strides) innermost(operand_strides);
    layout.kept = rank - 1;
    layout.levels += layout.kept;
  }
  for (int64_t d = 0; d < full_rank; ++d)
    (d < layout.levels ? layout.level_count : layout.example_count) *=
        layout.sizes[static_cast<std::size_t>(d)];
  // Merge dim d into the dim before it where every operand steps through both as one;
  // size-1 dims drop out. Never across the level / example boundary: a reduction walks
  // its examples by runs.
  layout.strides.resize(strides.size());
  layout.dims.reserve(static_cast<std::size_t>(full_rank));
  for (std::vector<int64_t>& operand_strides : layout.strides)
    operand_strides.reserve(static_cast<std::size_t>(full_rank));
  for (int64_t d = 0; d < full_rank; ++d) {
    const auto t = static_cast<std::size_t>(d);
    const int64_t size = layout.sizes[t];
    const bool same_group = !layout.dims.empty() && d != layout.levels;
    if (same_group && size == 1) continue;
    bool mergeable = same_group;
    for (std::size_t n = 0; mergeable && n < strides.size(); ++n)
      mergeable = layout.dims.back() == 1 || layout.strides[n].back() == strides[n][t] * size;
    if (mergeable) {
      layout.dims.back() *= size;
      for (std::size_t n = 0; n < strides.size(); ++n) layout.strides[n].back() = strides[n][t];
      continue;
    }
    layout.dims.push_back(size);
    for (std::size_t n = 0; n < strides.size(); ++n) layout.strides[n].push_back(strides[n][t]);
    if (d >= layout.levels) ++layout.example_rank;
  }
  return layout;
}

template <class T>
struct Walker {
  std::size_t operands = 0;
  std::array<const T*, kFusedMaxOperands> base{};
  std::array<std::array<int64_t, kFusedMaxDims>, kFusedMaxOperands> strides{};
  std::array<int64_t, kFusedMaxDims> dims{};
  int rank = 0;
  // Bit n set: operand n's innermost stride is 1, clear: 0 (it broadcasts); -1 when some
  // operand has another stride.
  int inner_mask = 0;

  explicit Walker(const FusedLayout& layout) : operands(layout.operands.size()) {
    rank = static_cast<int>(layout.dims.size());
    for (int d = 0; d < rank; ++d) dims[d] = layout.dims[static_cast<std::size_t>(d)];
    for (std::size_t n = 0; n < operands; ++n) {
      base[n] = layout.operands[n].template data_ptr<T>();
      for (int d = 0; d < rank; ++d) strides[n][d] = layout.strides[n][static_cast<std::size_t>(d)];
      const int64_t inner = rank == 0 ? 0 : strides[n][rank - 1];
      if (inner == 1 && inner_mask >= 0) inner_mask |= 1 << n;
      if (inner != 0 && inner != 1) inner_mask = -1;
    }
  }

  // visit(pointers, steps, runs, run) for the runs of the innermost dim in the flattened
  // positions [begin, end), as a kernel's runs loop takes them (FusedLoop): `runs` runs of
  // `run` elements, run r of operand n at pointers[n] + r * steps[operands + n], its
  // elements steps[n] apart. Whole runs that follow each other along the dim before the
  // innermost come in one visit.
  template <class Visit>
  void walk(int64_t begin, int64_t end, Visit&& visit) const {
    std::array<const T*, kFusedMaxOperands> at = base;
    std::array<int64_t, 2 * kFusedMaxOperands> steps{};
    if (rank == 0) {
      if (begin < end) visit(at, steps, int64_t{1}, int64_t{1});
      return;
    }
    std::array<int64_t, kFusedMaxDims> index{};
    int64_t rest = begin;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = rest % dims[d];
      rest /= dims[d];
      for (std::size_t n = 0; n < operands; ++n) at[n] += index[d] * strides[n][d];
    }
    const int last = rank - 1;
    for (std::size_t n = 0; n < operands; ++n) {
      steps[n] = strides[n][last];
      if (last > 0) steps[operands + n] = strides[n][last - 1];
    }
    for (int64_t position = begin; position < end;) {
      const int64_t run = std::min(end - position, dims[last] - index[last]);
      // Whole runs (index[last] is 0), as many as are left in the range and along dim
      // last - 1; all but the last one stepped over here, the last one below.
      const int64_t runs = last > 0 && run == dims[last]
                               ? std::min((end - position) / run, dims[last - 1] - index[last - 1])
                               : 1;
      visit(at, steps, runs, run);
      position += runs * run;
      if (runs > 1) {
        index[last - 1] += runs - 1;
        for (std::size_t n = 0; n < operands; ++n) at[n] += (runs - 1) * steps[operands + n];
      }
      index[last] += run;
      for (std::size_t n = 0; n < operands; ++n) at[n] += run * strides[n][last];
      for (int d = last; d > 0 && index[d] == dims[d]; --d) {
        index[d] = 0;
        ++index[d - 1];
        for (std::size_t n = 0; n < operands; ++n)
          at[n] += strides[n][d - 1] - dims[d] * strides[n][d];
      }
    }
  }
};

// The layout of `operands` when a compiled kernel applies to them and there is something to
// compute (with no elements the batched ops do what they do: an op the dtype lacks still
// raises).
std::optional<FusedLayout> planned(const std::vector<Value>& operands, bool every_example,
                                   std::optional<int64_t> reduced_dim = std::nullopt,
                                   Device on = kCPU) {
  std::optional<FusedLayout> layout = plan_fused(operands, every_example, reduced_dim, on);
  if (!layout || layout->level_count * layout->example_count == 0) return std::nullopt;
  return layout;
}

// The kernel's loops for the element type T of `layout`, when it is compiled for T, this CPU
// runs their vector ISA, and its first element computes (an op T does not define throws
// there, before any thread runs it).
template <class T>
const TypedKernel<T>* applicable(const TypedKernel<T>* typed, const FusedLayout& layout,
                                 const void* kernel) {
  if (typed == nullptr || !cpu_runs(typed->isa)) return nullptr;
  std::array<const T*, kFusedMaxOperands> first{};
  for (std::size_t n = 0; n < layout.operands.size(); ++n)
    first[n] = layout.operands[n].template data_ptr<T>();
  return typed->computes(kernel, first.data()) ? typed : nullptr;
}

// A whole pending node of `sizes` and `dtype` (Note [Deferred results]) that fill(layout,
// kernel, out) computes into the destination it gets (or a new tensor, when it gets none),
// with the layout (moved in, not copied: its vectors are a fixed cost of every call) and a
// copy of the kernel kept alive until then. `elementwise`: a store's, each element from the
// operands' elements at its position (Pending::elementwise).
Value deferred(FusedLayout layout, std::vector<int64_t> sizes, Dtype dtype,
               const KernelCode& code,
               std::function<void(const FusedLayout&, const void*, void*)> fill,
               bool elementwise = false) {
  std::vector<Tensor> inputs = layout.operands;
  const int64_t levels = layout.levels - layout.kept;
  std::shared_ptr<const void> kernel = code.keep(code.kernel);
  const Device device = layout.operands.front().device();
  auto compute = [sizes, dtype, device, layout = std::move(layout), kernel = std::move(kernel),
                  fill = std::move(fill)](const Tensor& destination) {
    const Tensor out = destination.defined() && destination.dtype() == dtype
                           ? destination
                           : vmap::empty(sizes, TensorOptions(dtype).device(device));
    fill(layout, kernel.get(), out.raw_data());
    return out;
  };
  return Access::make_pending(
      whole_node(std::move(sizes), dtype, device, std::move(inputs), std::move(compute),
                 elementwise),
      levels, false);
}

// Writes the kernel's elements, in the flattened order of the layout, to `out`.
template <class T>
void store(const FusedLayout& layout, const TypedKernel<T>& typed, const void* kernel,
           void* out) {
  const Walker<T> walker(layout);
  const FusedLoop<T> loop = typed.runs.pick(walker.inner_mask);
  const int64_t size = vmap::detail::element_size(typed.result);
  const int64_t count = layout.level_count * layout.example_count;
  vmap::detail::parallel_for(count, 1, [&](int64_t begin, int64_t end) {
    char* target = static_cast<char*>(out) + begin * size;
    walker.walk(begin, end, [&](const auto& at, const auto& steps, int64_t runs, int64_t run) {
      loop(kernel, at.data(), steps.data(), runs, run, target);
      target += runs * run * size;
    });
  });
}

// The sum of the kernel over the flattened positions [begin, end), in Sum (the type `loop`
// sums a run in).
template <class T, class Sum>
Sum sum_range(const Walker<T>& walker, FusedLoop<T> loop, const void* kernel, int64_t begin,
              int64_t end) {
  Sum total = 0;
  walker.walk(begin, end, [&](const auto& at, const auto& steps, int64_t runs, int64_t run) {
    Sum runs_total = 0;
    loop(kernel, at.data(), steps.data(), runs, run, &runs_total);
    total += runs_total;
  });
  return total;
}

// The sum over every position, on threads: fixed chunks whose partial sums are added in
// chunk order, so the result does not depend on the thread count.
template <class T, class Sum>
Sum sum_all(const FusedLayout& layout, const TypedKernel<T>& typed, const void* kernel) {
  const Walker<T> walker(layout);
  const FusedLoop<T> loop = typed.runs.pick(walker.inner_mask);
  const int64_t count = layout.level_count * layout.example_count;
  constexpr int64_t kMaxChunks = 64;
  const int64_t chunks = std::max<int64_t>(1, std::min(kMaxChunks, count / 4096));
  std::array<Sum, kMaxChunks> partial{};  // on the stack: a short sum is called often
  vmap::detail::parallel_for(chunks, count / chunks, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c)
      partial[static_cast<std::size_t>(c)] =
          sum_range<T, Sum>(walker, loop, kernel, count * c / chunks, count * (c + 1) / chunks);
  });
  Sum total = 0;
  for (int64_t c = 0; c < chunks; ++c) total += partial[static_cast<std::size_t>(c)];
  return total;
}

// to[k * row_length + j] = from[j * along_row + k * along_example], j < count, k < per.
// Written in order, read with a stride: stores a row apart (j outermost) made packing a
// 200x10 y cost 1.1 us of a 16 us pairwise distance.
template <class T>
void pack(const T* from, int64_t along_row, int64_t along_example, int64_t per, int64_t count,
          int64_t row_length, T* to) {
  for (int64_t k = 0; k < per; ++k)
    for (int64_t j = 0; j < count; ++j)
      to[k * row_length + j] = from[j * along_row + k * along_example];
}

// Note [Short examples summed side by side]
// An example of a few hundred elements summed alone is a short chain of dependent adds and a
// loop too short to vectorise (pairwise distance of width 10). A plain loop
// (samples/plain/pairwise_distance.cpp) turns it around, and so does this: for each position
// of the outer level dims, a row of up to kRowBlock examples along the innermost level dim is
// summed together, the examples' elements k outermost and the row j innermost: sums[j] +=
// kernel(k, j), a vector loop over the row kept in L1 (the kernel's rows loop,
// Fused::sum_row: two k per pass, added in order), the sums the result's own slots. One call
// of the rows loop takes the rows that follow each other along the next outer level dim (a
// call per row, with its position found by division, was a tenth of a 100x200x10 distance).
// (Tiles of sums kept in registers through the k loop, one tile loop per tail width, ran
// faster but cost a rewritten pairwise_distance 0.15-0.5 s of compile time: past its 2x.) An
// operand whose stride along the row is neither 0 (one value for the row: x[i][k]) nor 1 is
// first packed [k][j], contiguous along the row: once for the call when it does not vary
// along the outer level dims (the y of a pairwise distance), per row otherwise. Each example
// is still summed by one thread in its elements' order in the element type, so the result
// does not depend on the thread count; long examples keep sum_run's blocked lanes.
constexpr int64_t kShortExample = 256;
constexpr int64_t kStridedExample = 4096;
// A row's sums (8 KB of floats) and the two rows of an operand a pass reads stay in L1; a
// pass over 512 had its per-pass setup cost a quarter of a 2000x2000x64 distance (14.1 ->
// 10.2 ms, plain loop 9.1).
constexpr int64_t kRowBlock = 2048;
constexpr int64_t kPackLimit = int64_t{1} << 22;  // elements packed once per call
constexpr int64_t kPackReuse = 4;  // outer rows that read a packed operand, at least

template <class T, class R>
void sum_rows(const FusedLayout& layout, const TypedKernel<T>& typed, const void* kernel, R* out,
              bool mean) {
  const Walker<T> walker(layout);
  const FusedLoops<T>& loops = typed.rows;
  const std::size_t operands = walker.operands;
  const int row_dim = walker.rank - 2, example_dim = walker.rank - 1;
  const int64_t width = walker.dims[row_dim], per = walker.dims[example_dim];
  const int64_t blocks = (width + kRowBlock - 1) / kRowBlock;
  enum class Read { direct, packed_once, packed_per_row };
  std::array<Read, kFusedMaxOperands> read{};
  std::array<std::vector<T>, kFusedMaxOperands> packed;
  int mask = 0;
  bool read_broadcasts = false;  // mask 0 (every operand broadcast) has no loop
  for (std::size_t n = 0; n < operands; ++n)
    read_broadcasts = read_broadcasts || walker.strides[n][row_dim] != 0;
  read_broadcasts = read_broadcasts && loops.has_masks();
  for (std::size_t n = 0; n < operands; ++n) {
    const int64_t along_row = walker.strides[n][row_dim];
    // Broadcasts read as one value where the kernel has their loops; else packed too.
    const bool direct = along_row == 1 || (along_row == 0 && read_broadcasts);
    if (along_row != 0 || !direct) mask |= 1 << n;
    if (direct) continue;
    bool invariant = per * width <= kPackLimit;
    for (int d = 0; d < row_dim; ++d) invariant = invariant && walker.strides[n][d] == 0;
    if (!invariant) {
      read[n] = Read::packed_per_row;
      continue;
    }
    read[n] = Read::packed_once;
    packed[n].resize(static_cast<std::size_t>(per * width));
    pack(walker.base[n], along_row, walker.strides[n][example_dim], per, width, width,
         packed[n].data());
  }
  const FusedLoop<T> loop = loops.pick(mask);
  const int64_t tasks = layout.level_count / width * blocks;
  // One call of the loop takes the rows that follow each other along the innermost outer
  // dim, where a row is one block and no operand is packed per row (FusedLoop).
  bool rows_together = blocks == 1 && row_dim >= 1;
  for (std::size_t n = 0; n < operands; ++n)
    rows_together = rows_together && read[n] != Read::packed_per_row;
  const int64_t along_outer = rows_together ? walker.dims[row_dim - 1] : 1;
  const int64_t task_cost = per * std::min(width, kRowBlock);
  vmap::detail::parallel_for(tasks, task_cost, [&](int64_t first, int64_t last) {
    std::array<std::vector<T>, kFusedMaxOperands> row_buffer;
    for (std::size_t n = 0; n < operands; ++n)
      if (read[n] == Read::packed_per_row)
        row_buffer[n].resize(static_cast<std::size_t>(per * std::min(width, kRowBlock)));
    for (int64_t task = first, rows = 1; task < last; task += rows) {
      const int64_t outer = task / blocks, j0 = task % blocks * kRowBlock;
      const int64_t count = std::min(kRowBlock, width - j0);
      rows = std::min(last - task, along_outer - outer % along_outer);
      std::array<const T*, kFusedMaxOperands> row;
      // Per operand its step along an example, then along the outer dim; the rows, and the
      // result's step from one row to the next.
      std::array<int64_t, 2 * kFusedMaxOperands + 2> steps{};
      for (std::size_t n = 0; n < operands; ++n) {
        const T* at = walker.base[n];
        for (int64_t d = row_dim - 1, rest = outer; d >= 0; --d) {
          at += rest % walker.dims[d] * walker.strides[n][d];
          rest /= walker.dims[d];
        }
        const int64_t along_row = walker.strides[n][row_dim];
        const int64_t along_example = walker.strides[n][example_dim];
        switch (read[n]) {
          case Read::direct:
            row[n] = at + j0 * along_row;
            steps[n] = along_example;
            if (rows_together) steps[operands + n] = walker.strides[n][row_dim - 1];
            break;
          case Read::packed_once:  // the same rows for every outer position
            row[n] = packed[n].data() + j0;
            steps[n] = width;
            break;
          case Read::packed_per_row:
            pack(at + j0 * along_row, along_row, along_example, per, count, count,
                 row_buffer[n].data());
            row[n] = row_buffer[n].data();
            steps[n] = count;
            break;
        }
      }
      steps[2 * operands] = rows;
      steps[2 * operands + 1] = width;
      R* const sums = out + outer * width + j0;
      loop(kernel, row.data(), steps.data(), per, count, sums);
      if (mean)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < count; ++j) sums[r * width + j] /= static_cast<R>(per);
    }
  });
}

// Whether the examples are summed side by side: one run of `per` elements per example when
// its dims merged into one, a level dim to sum along, the kernel's rows loops, and any operand
// that must be packed (neither 0 nor 1 apart along the row) packed once for several outer
// rows (the y of a pairwise distance, read for every x[i]). Packed for one row, the packing
// is a second, transposing pass over the operand: a Linear written `(w[o] * x[i]).sum()` in a
// plain loop over o packed all of x [10000, 256] on each trip, 70 ms a trip against 1 ms
// summed example by example.
template <class T>
bool side_by_side(const FusedLayout& layout, const TypedKernel<T>& typed) {
  if (layout.example_rank != 1 || layout.dims.size() < 2 || typed.rows.all_unit == nullptr)
    return false;
  // Long examples keep sum_run's blocked lanes where the kernel has a loop for their
  // elements' strides. Strided ones (a sum over a dim that is not the innermost, its
  // elements a row apart: `(x[i] - y).pow(2).sum(0)`) have none: summed side by side, the
  // kept dim the row, up to kStridedExample elements (each added in order in T: its
  // rounding bounded as the runtime's sum bounds its lanes'); longer, the batched ops.
  if (layout.example_count > kShortExample &&
      (layout.example_count > kStridedExample ||
       typed.runs.pick(Walker<T>(layout).inner_mask) != nullptr))
    return false;
  const std::size_t row_dim = layout.dims.size() - 2;
  const int64_t outer_rows = layout.level_count / layout.dims[row_dim];
  for (const std::vector<int64_t>& strides : layout.strides) {
    const int64_t along_row = strides[row_dim];
    if (along_row != 0 && along_row != 1 && outer_rows < kPackReuse) return false;
  }
  return true;
}

// Each example's sum (or mean), in the flattened order of the level dims, to `out`.
template <class T, class R>
void sum_examples(const FusedLayout& layout, const TypedKernel<T>& typed, const void* kernel,
                  bool mean, R* out) {
  const int64_t per = layout.example_count;
  auto finish = [&](R total) { return mean ? total / static_cast<R>(per) : total; };
  if (side_by_side(layout, typed)) return sum_rows<T, R>(layout, typed, kernel, out, mean);
  const Walker<T> walker(layout);
  const FusedLoop<T> loop = typed.runs.pick(walker.inner_mask);
  vmap::detail::parallel_for(layout.level_count, per, [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p)
      out[p] = finish(sum_range<T, R>(walker, loop, kernel, p * per, (p + 1) * per));
  });
}

template <class T>
std::optional<Value> store_value(FusedLayout layout, const TypedKernel<T>* compiled,
                                 const KernelCode& code) {
  const TypedKernel<T>* typed = applicable(compiled, layout, code.kernel);
  if (typed == nullptr) return std::nullopt;
  std::vector<int64_t> sizes = layout.sizes;
  return deferred(std::move(layout), std::move(sizes), typed->result, code,
                  [typed](const FusedLayout& laid_out, const void* kernel, void* out) {
                    store<T>(laid_out, *typed, kernel, out);
                  },
                  /*elementwise=*/true);
}

template <class T>
std::optional<Value> sum_value(FusedLayout layout, const TypedKernel<T>* compiled,
                               const KernelCode& code, bool mean) {
  const TypedKernel<T>* typed = applicable(compiled, layout, code.kernel);
  if (typed == nullptr) return std::nullopt;
  // A kernel may have no loop for these strides (Note [Loops per fused kernel]).
  if (!side_by_side(layout, *typed) && typed->runs.pick(Walker<T>(layout).inner_mask) == nullptr)
    return std::nullopt;
  std::vector<int64_t> sizes(layout.sizes.begin(), layout.sizes.begin() + layout.levels);
  return deferred(std::move(layout), std::move(sizes), typed->result, code,
                  [typed, mean](const FusedLayout& laid_out, const void* kernel, void* out) {
                    if (typed->result == kFloat64)
                      sum_examples<T>(laid_out, *typed, kernel, mean, static_cast<double*>(out));
                    else
                      sum_examples<T>(laid_out, *typed, kernel, mean, static_cast<float*>(out));
                  });
}

template <class Sum>
void accumulate_total(Tensor& acc, Sum total, Reduce op) {
  if (any_level_empty()) return;
  settle_before_write(acc);
  // A double accumulator of a float sum (pairwise_sum_prod): added in place, no 0-d tensor
  // and runtime op per call; any other dtype as the runtime's += promotes.
  if (acc.dtype() == vmap::detail::dtype_of<Sum>) {
    Sum& value = *acc.data_ptr<Sum>();
    value = op == Reduce::add ? value + total : value - total;
    return;
  }
  const Tensor value = vmap::full({}, total, vmap::detail::dtype_of<Sum>);
  if (op == Reduce::add)
    acc += value;
  else
    acc -= value;
}

// acc op= the kernel's total: its runs summed in the element type, their totals added in
// double (int64 for integer elements), as accumulate() adds a reduced value.
template <class T>
bool accumulate_into(Tensor& acc, Reduce op, const FusedLayout& layout,
                     const TypedKernel<T>* compiled, const KernelCode& code, bool rebinding) {
  if (layout.example_count != 1) return false;
  const TypedKernel<T>* typed = applicable(compiled, layout, code.kernel);
  if (typed == nullptr) return false;
  if (rebinding) {
    // `acc = acc + e` (0-d both): a new tensor of their promoted dtype, which the total goes
    // into; where no example runs, nothing is assigned and acc keeps its handle.
    if (any_level_empty()) return true;
    acc = acc.to(vmap::detail::promote_types(acc.dtype(), typed->result)).clone();
  }
  if (vmap::detail::is_floating(typed->result))
    accumulate_total(acc, sum_all<T, double>(layout, *typed, code.kernel), op);
  else
    accumulate_total(acc, sum_all<T, int64_t>(layout, *typed, code.kernel), op);
  return true;
}

// Note [Fused kernels on a device]: the kernel's store (or its examples' sums) as one launch
// of its device program over `layout` (planned on the device).
template <class T>
std::optional<Value> device_value(FusedLayout layout, const TypedKernel<T>* typed,
                                  const KernelCode& code, bool sum, bool mean) {
  if (typed == nullptr || (sum && !vmap::detail::is_floating(typed->result))) return std::nullopt;
  // The first element's type-level check (an op the dtype lacks throws), on the host: only
  // types matter, so zeros stand in for the elements.
  std::array<T, kFusedMaxOperands> zeros{};
  std::array<const T*, kFusedMaxOperands> first{};
  for (std::size_t n = 0; n < kFusedMaxOperands; ++n) first[n] = &zeros[n];
  if (!typed->computes(code.kernel, first.data())) return std::nullopt;
  std::vector<DeviceArgument> arguments;
  code.device_arguments(code.kernel, arguments);
  auto program = std::make_shared<const std::string>(fused_device_program(
      code.device, layout.dtype, typed->result, arguments, sum, code.squared));
  std::vector<int64_t> sizes(layout.sizes.begin(),
                             layout.sizes.begin() + (sum ? layout.levels : layout.sizes.size()));
  return deferred(
      std::move(layout), std::move(sizes), typed->result, code,
      [program, arguments, walk = code.walk_on_host, sum, mean](
          const FusedLayout& laid_out, const void* kernel, void* out) {
        vmap_kernel::FusedArgs args{};
        const int64_t rank = static_cast<int64_t>(laid_out.dims.size());
        args.rank = static_cast<int>(rank);
        args.example_rank = static_cast<int>(sum ? laid_out.example_rank : 0);
        args.example_count = laid_out.example_count;
        args.count = sum ? laid_out.level_count : laid_out.level_count * laid_out.example_count;
        for (int64_t d = 0; d < rank; ++d) args.dims[d] = laid_out.dims[d];
        for (std::size_t n = 0; n < laid_out.operands.size(); ++n) {
          args.base[n] = laid_out.operands[n].raw_data();
          for (int64_t d = 0; d < rank; ++d) args.strides[n][d] = laid_out.strides[n][d];
        }
        for (std::size_t a = 0; a < arguments.size(); ++a)
          std::memcpy(args.numbers[a], arguments[a].bytes.data(), 8);
        args.out = out;
        args.mean = mean;
        // A square tile of the last two level dims where there are two (Note [Fused kernels
        // on a device]), else a row.
        const int64_t level_rank = rank - args.example_rank;
        vmap::detail::CompiledKernelCall call;
        call.block_threads = vmap_fused::kTile * vmap_fused::kTile;
        if (level_rank >= 2) {
          // A sum stages its operands' cells where they fit (Note [Staged tiles on a device]).
          args.tile = vmap_fused::kTile * vmap_fused::kMicro;
          if (sum)
            args.chunk = vmap_fused::staged_chunk(
                args, static_cast<int>(laid_out.operands.size()),
                static_cast<int>(vmap::detail::element_size(laid_out.dtype)));
          if (args.chunk == 0) args.tile = vmap_fused::kTile;
          const int64_t rows = args.dims[level_rank - 2], columns = args.dims[level_rank - 1];
          const int64_t tiles = ((rows + args.tile - 1) / args.tile) *
                                ((columns + args.tile - 1) / args.tile) *
                                (args.count / std::max<int64_t>(rows * columns, 1));
          call.count = tiles * call.block_threads;
        } else {
          call.count = (args.count + call.block_threads - 1) / call.block_threads *
                       call.block_threads;
        }
        call.source = program->c_str();
        with_fused_device_headers(call);
        call.arguments = &args;
        call.argument_bytes = sizeof args;
        struct HostContext {
          const vmap_kernel::FusedArgs& args;
          const KernelCode::WalkOnHost walk;
          const void* kernel;
          Dtype element;
          bool sum;
          int64_t blocks, threads;
        };
        // The host form (the emulated device): the same walk, thread by thread.
        const HostContext context{args, walk, kernel, laid_out.dtype, sum,
                                  call.count / call.block_threads, call.block_threads};
        call.host_context = &context;
        call.host = [](const void* c) {
          const auto& host = *static_cast<const HostContext*>(c);
          host.walk(host.kernel, host.args, host.element, host.sum, host.blocks, host.threads);
        };
        if (!vmap::detail::device_backend("fused").compiled_kernel("fused", call))
          throw vmap::Error("fused: the kernel's device program does not compile (the warning "
                            "above says why); a build with the tool's own headers compiles it");
      });
}

}  // namespace

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool cpu_runs(VectorIsa isa) {
  static const bool avx2_fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  static const bool avx512 = avx2_fma && __builtin_cpu_supports("avx512f") &&
                             __builtin_cpu_supports("avx512vl") &&
                             __builtin_cpu_supports("avx512bw") &&
                             __builtin_cpu_supports("avx512dq");
  switch (isa) {
    case VectorIsa::users: return true;
    case VectorIsa::avx2_fma: return avx2_fma;
    case VectorIsa::avx512: return avx512;
  }
  return false;
}
#else
bool cpu_runs(VectorIsa isa) { return isa == VectorIsa::users; }
#endif

// Where the kernel's operands live: the device of the first that is not on the CPU.
Device operands_device(const std::vector<Value>& operands) {
  for (const Value& v : operands)
    if (v.defined() && placed_on(v) != kCPU) return placed_on(v);
  return kCPU;
}

std::optional<Value> on_device(const std::vector<Value>& operands, const KernelCode& code,
                               Device device, bool sum, bool mean,
                               std::optional<int64_t> dim = std::nullopt) {
  if (code.device.lambda == nullptr || dim) return std::nullopt;
  std::optional<FusedLayout> layout = planned(operands, false, std::nullopt, device);
  if (!layout) return std::nullopt;
  return layout->dtype == kFloat64 ? device_value(std::move(*layout), code.f64, code, sum, mean)
                                   : device_value(std::move(*layout), code.f32, code, sum, mean);
}

// VMAP_CHECK_DEVICE_KERNELS (Note [Scalar kernels on a device] in fused_scalar.hpp): the
// device program this call would run on a device, compiled to PTX once.
void check_device_program(const FusedLayout& layout, const KernelCode& code, bool sum) {
  if (code.device.lambda == nullptr || !checking_device_kernels()) return;
  const Dtype result = layout.dtype == kFloat64 ? (code.f64 ? code.f64->result : kFloat64)
                                                : (code.f32 ? code.f32->result : kFloat32);
  std::vector<DeviceArgument> arguments;
  code.device_arguments(code.kernel, arguments);
  const std::string program = fused_device_program(code.device, layout.dtype, result,
                                                   arguments, sum, code.squared);
  static std::mutex mutex;
  static std::unordered_set<std::string> checked;
  std::lock_guard lock(mutex);
  if (!checked.insert(program).second) return;
  vmap::detail::CompiledKernelCall call;
  call.source = program.c_str();
  with_fused_device_headers(call);
  vmap::detail::check_device_kernel("fused", call);
}

std::optional<Value> fused_store(const std::vector<Value>& operands, const KernelCode& code) {
  if (const Device device = operands_device(operands); device != kCPU)
    return on_device(operands, code, device, false, false);
  std::optional<FusedLayout> layout = planned(operands, false);
  if (!layout) return std::nullopt;
  check_device_program(*layout, code, false);
  return layout->dtype == kFloat64 ? store_value(std::move(*layout), code.f64, code)
                                   : store_value(std::move(*layout), code.f32, code);
}

std::optional<Value> fused_sum(const std::vector<Value>& operands, const KernelCode& code,
                               bool mean, std::optional<int64_t> dim) {
  if (const Device device = operands_device(operands); device != kCPU)
    return on_device(operands, code, device, true, mean, dim);
  std::optional<FusedLayout> layout = planned(operands, false, dim);
  if (!layout) return std::nullopt;
  if (!dim) check_device_program(*layout, code, true);
  return layout->dtype == kFloat64 ? sum_value(std::move(*layout), code.f64, code, mean)
                                   : sum_value(std::move(*layout), code.f32, code, mean);
}

bool fused_accumulate(Tensor& acc, Reduce op, const std::vector<Value>& operands,
                      const KernelCode& code, bool rebinding) {
  // A compiled accumulator would ignore a live vb::Where.
  if ((op != Reduce::add && op != Reduce::sub) || current_mask() != nullptr || acc.dim() != 0 ||
      acc.device() != kCPU)
    return false;
  const std::optional<FusedLayout> layout = planned(operands, true);
  if (!layout) return false;
  return layout->dtype == kFloat64
             ? accumulate_into(acc, op, *layout, code.f64, code, rebinding)
             : accumulate_into(acc, op, *layout, code.f32, code, rebinding);
}

bool shares_memory(const Value& slot, const Value& other) {
  if (Access::pending(other) || Access::pending(slot)) return false;
  return vmap::detail::overlaps(slot.physical(), other.physical());
}

}  // namespace vmap::batched::detail
