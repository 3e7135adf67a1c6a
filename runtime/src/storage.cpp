// The caching allocator: freed blocks go to a free list of their size class and are handed
// out again, so a loop of small ops does not call malloc every time.
#include "internal.hpp"
#include "../cuda/backend.hpp"

#include <array>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace vmap::detail {
namespace {

constexpr size_t alignment = 64;
// Blocks beyond this many cached bytes are returned to the system.
constexpr size_t max_cached_bytes = size_t{2} << 30;

// Size classes: multiples of 64 bytes up to 4 KiB, then four classes per power of two
// (at most 25% slack).
size_t size_class(size_t nbytes) {
  if (nbytes <= 4096) return nbytes == 0 ? alignment : (nbytes + alignment - 1) / alignment * alignment;
  size_t power = size_t{1} << (63 - __builtin_clzll(nbytes));
  size_t step = power / 4;
  return (nbytes + step - 1) / step * step;
}

// Per-thread free lists, so that the small blocks of a loop of small ops never take a lock:
// the TensorImpl/Storage objects (pool_allocate, 16-byte steps up to 512 bytes) and the data
// blocks of the small size classes (64-byte steps up to 4 KiB). A block freed on another
// thread than the one that allocated it simply moves to that thread's lists.
// Blocks up to 512 KiB have a few per-thread slots too: the fused evaluation's block
// temporaries (32K elements, Note [Pending values] in rules/src/batched/batched_fused.hpp) are made
// and freed on every thread of a parallel loop at once, and would take turns on the lock.
constexpr size_t pool_step = 16;
constexpr size_t pool_max_bytes = 512;
constexpr size_t pool_max_blocks = 4096;        // per size, per thread
constexpr size_t small_block_max_bytes = 4096;  // the small size classes
constexpr size_t small_blocks_per_thread = 64;  // per size class: at most 4 MiB a thread
constexpr size_t medium_block_max_bytes = size_t{512} << 10;
constexpr size_t medium_blocks_per_thread = 4;  // per size class: all full, 23 MiB a thread
constexpr int medium_first_power = 12;          // classes above 4 KiB: four per power of two
constexpr size_t medium_classes = 4 * (19 - medium_first_power + 1);

struct ThreadPool {
  std::array<std::vector<void*>, pool_max_bytes / pool_step + 1> objects;
  std::array<std::vector<void*>, small_block_max_bytes / alignment + 1> data_blocks;
  std::array<std::vector<void*>, medium_classes> medium_blocks;
  ~ThreadPool();
};
// Trivially destructible, so it can be read even while thread_local destructors run.
thread_local bool pool_gone = false;
thread_local ThreadPool thread_pool;

ThreadPool::~ThreadPool() {
  pool_gone = true;
  for (auto& blocks : objects)
    for (void* block : blocks) ::operator delete(block);
  for (auto& blocks : data_blocks)
    for (void* block : blocks) std::free(block);
  for (auto& blocks : medium_blocks)
    for (void* block : blocks) std::free(block);
}

// This thread's free list of data blocks of a size class and how many it keeps, or a null
// list (large class, caching off, or the thread exiting).
struct ThreadBlocks {
  std::vector<void*>* blocks = nullptr;
  size_t limit = 0;
};
ThreadBlocks thread_data_blocks(size_t size) {
#ifdef VMAP_NO_ALLOCATOR_CACHE
  (void)size;
  return {};
#else
  if (size > medium_block_max_bytes || pool_gone) return {};
  if (size <= small_block_max_bytes)
    return {&thread_pool.data_blocks[size / alignment], small_blocks_per_thread};
  const int power = 63 - __builtin_clzll(size);  // size is a class: power + quarters
  const size_t quarter = (size - (size_t{1} << power)) / (size_t{1} << (power - 2));
  return {&thread_pool.medium_blocks[4 * (power - medium_first_power) + quarter],
          medium_blocks_per_thread};
#endif
}

// A statistics counter bumped without a locked instruction: a relaxed load and store, so
// increments racing on two threads may merge (the counts are for tests and diagnostics).
void bump(std::atomic<int64_t>& counter) {
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

class CachingAllocator {
 public:
  void* allocate(size_t nbytes, const char* op) {
    const size_t size = size_class(nbytes);
    if (std::vector<void*>* blocks = thread_data_blocks(size).blocks; blocks && !blocks->empty()) {
      void* block = blocks->back();
      blocks->pop_back();
      bump(thread_cache_hits_);
      return block;
    }
#ifndef VMAP_NO_ALLOCATOR_CACHE
    {
      std::lock_guard lock(mutex_);
      std::vector<void*>& blocks = free_list(size);
      if (!blocks.empty()) {
        void* block = blocks.back();
        blocks.pop_back();
        cached_bytes_ -= size;
        ++stats_.cache_hits;
        return block;
      }
      ++stats_.fresh_allocations;
    }
#endif
    void* block = std::aligned_alloc(alignment, size);
    if (block == nullptr) {
      release_cache();
      block = std::aligned_alloc(alignment, size);
    }
    if (block == nullptr) fail(op, "out of memory allocating ", nbytes, " bytes");
    return block;
  }

  void release(void* block, size_t nbytes) {
#ifndef VMAP_NO_ALLOCATOR_CACHE
    const size_t size = size_class(nbytes);
    if (const ThreadBlocks own = thread_data_blocks(size);
        own.blocks && own.blocks->size() < own.limit) {
      own.blocks->push_back(block);
      return;
    }
    std::lock_guard lock(mutex_);
    if (cached_bytes_ + size <= max_cached_bytes) {
      free_list(size).push_back(block);
      cached_bytes_ += size;
      return;
    }
#else
    (void)nbytes;
#endif
    std::free(block);
  }

  // The shared cache, and the calling thread's own lists.
  void release_cache() {
    auto release = [](std::vector<void*>& blocks) {
      for (void* block : blocks) std::free(block);
      blocks.clear();
    };
    if (!pool_gone) {
      for (auto& blocks : thread_pool.data_blocks) release(blocks);
      for (auto& blocks : thread_pool.medium_blocks) release(blocks);
    }
    std::lock_guard lock(mutex_);
    for (auto& blocks : small_blocks_) release(blocks);
    for (auto& [size, blocks] : free_blocks_) release(blocks);
    cached_bytes_ = 0;
  }

  AllocatorStats stats() {
    std::lock_guard lock(mutex_);
    AllocatorStats result = stats_;
    result.cache_hits += thread_cache_hits_.load(std::memory_order_relaxed);
    result.cached_bytes = static_cast<int64_t>(cached_bytes_);
#ifdef VMAP_NO_ALLOCATOR_CACHE
    result.caching = false;
#endif
    return result;
  }

 private:
  // Small classes (multiples of 64 up to 4 KiB) in an array, the rest in a map.
  std::vector<void*>& free_list(size_t size) {
    if (size <= small_block_max_bytes) return small_blocks_[size / alignment];
    return free_blocks_[size];
  }

  std::mutex mutex_;
  std::array<std::vector<void*>, small_block_max_bytes / alignment + 1> small_blocks_;
  std::unordered_map<size_t, std::vector<void*>> free_blocks_;
  size_t cached_bytes_ = 0;
  AllocatorStats stats_;
  std::atomic<int64_t> thread_cache_hits_{0};
};

// Never destroyed: tensors in static objects may die after it would have.
CachingAllocator& allocator() {
  static auto* instance = new CachingAllocator();
  return *instance;
}

}  // namespace

#ifdef VMAP_NO_ALLOCATOR_CACHE
void* pool_allocate(size_t bytes) { return ::operator new(bytes); }
void pool_deallocate(void* block, size_t) { ::operator delete(block); }
#else
void* pool_allocate(size_t bytes) {
  if (bytes > pool_max_bytes || pool_gone) return ::operator new(bytes);
  auto& blocks = thread_pool.objects[(bytes + pool_step - 1) / pool_step];
  if (blocks.empty()) return ::operator new((bytes + pool_step - 1) / pool_step * pool_step);
  void* block = blocks.back();
  blocks.pop_back();
  return block;
}

void pool_deallocate(void* block, size_t bytes) {
  if (bytes <= pool_max_bytes && !pool_gone) {
    auto& blocks = thread_pool.objects[(bytes + pool_step - 1) / pool_step];
    if (blocks.size() < pool_max_blocks) {
      blocks.push_back(block);
      return;
    }
  }
  ::operator delete(block);
}
#endif

Storage::~Storage() {
  if (!owned || data == nullptr) return;
  if (device != kCPU) device_backend("free").release(data, nbytes);
  else allocator().release(data, nbytes);
}

std::shared_ptr<Storage> allocate_storage(size_t nbytes, Device device, const char* op) {
  auto storage = std::allocate_shared<Storage>(PoolAllocator<Storage>());
  storage->data = device == kCPU ? allocator().allocate(nbytes, op)
                                 : device_backend(op).allocate(nbytes);
  storage->nbytes = nbytes;
  storage->device = device;
  return storage;
}

std::shared_ptr<Storage> borrow_storage(void* data, size_t nbytes, Device device) {
  auto storage = std::allocate_shared<Storage>(PoolAllocator<Storage>());
  storage->data = data;
  storage->nbytes = nbytes;
  storage->device = device;
  storage->owned = false;
  return storage;
}

AllocatorStats allocator_stats() { return allocator().stats(); }
void empty_allocator_cache() { allocator().release_cache(); }

}  // namespace vmap::detail
