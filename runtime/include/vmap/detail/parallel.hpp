// The runtime's thread splits (runtime/src/engine.cpp), the one place work is divided among
// OpenMP threads: the runtime's ops and the batched layer's compiled kernels (fused chains,
// blocks of pending values, scalar kernels) all split through here (Note [Thread grain]).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace vmap::detail {

// A non-owning callable reference (no allocation).
template <class Signature>
class FunctionRef;
template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
  FunctionRef(F&& f)  // NOLINT: implicit by design
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

// Work (items x cost per item, in elements) per thread: a thread for each grain begun, so
// work above one grain runs on threads (Note [Thread grain] in engine.cpp).
inline constexpr int64_t parallel_grain = int64_t{1} << 15;

// Threads for `work`: 1 at or under one grain, or inside a parallel region.
int threads_for(int64_t work);

// Splits [0, n) into equal contiguous chunks, chunk t on OpenMP thread t, when
// n * cost_per_item is above one grain; otherwise runs body(0, n) on the calling thread.
void parallel_for(int64_t n, int64_t cost_per_item, FunctionRef<void(int64_t, int64_t)> body);

// Runs body(k) for every k in [0, n), each on one thread, when n * cost_per_item is above
// one grain: thread t of T starts on the t-th of T contiguous runs (as parallel_for splits)
// and, done with it, takes the next items of the others' runs, so a thread descheduled on a
// shared machine, or an item far costlier than the rest, delays an item, not a run. An
// exception thrown by body is rethrown after the threads join: that of the lowest k that
// threw (the one a loop in order meets first); items after it may still have run.
void parallel_for_each(int64_t n, int64_t cost_per_item, FunctionRef<void(int64_t)> body);

}  // namespace vmap::detail
