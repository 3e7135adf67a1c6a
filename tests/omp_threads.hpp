// The OpenMP thread count for a scope: tests of the threaded paths run them on a set number
// of threads whatever the machine's core count.
#pragma once

#include <omp.h>

namespace vmap_test {

class OmpThreads {
 public:
  explicit OmpThreads(int threads) : before_(omp_get_max_threads()) {
    omp_set_num_threads(threads);
  }
  ~OmpThreads() { omp_set_num_threads(before_); }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  int before_;
};

}  // namespace vmap_test
