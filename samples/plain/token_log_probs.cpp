// token_log_probs (samples/token_log_probs.cpp) as a plain C++ loop: per token, the
// vocabulary's maximum, the sum of exponentials and the target's entry, in one row's
// passes (Note [Plain C++ loops] in plain.hpp). Built with -ffast-math (this file only,
// samples/CMakeLists.txt): GCC then calls glibc's vector expf (libmvec) in the sum.
#include "plain.hpp"

#include <algorithm>
#include <cmath>

using namespace vmap;

static sample::CaseList cases() {
  manual_seed(8);
  const int64_t batch = 64, sequence = 512, vocabulary = 1000;
  const Tensor logits = randn({batch, sequence, vocabulary});
  const Tensor targets = randint(0, vocabulary, {batch, sequence});
  return {{"per-token log-prob gather 64x512, vocab 1000", batch, [=](int64_t count) {
             Tensor out = zeros({count, sequence});
             const float* rows = logits.data_ptr<float>();
             const int64_t* picks = targets.data_ptr<int64_t>();
             float* result = out.data_ptr<float>();
             const int64_t tokens = count * sequence;
#pragma omp parallel for schedule(static) if (tokens * vocabulary > plain::kGrain)
             for (int64_t token = 0; token < tokens; ++token) {
               const float* row = rows + token * vocabulary;
               float largest = row[0];
#pragma omp simd reduction(max : largest)
               for (int64_t v = 0; v < vocabulary; ++v) largest = std::max(largest, row[v]);
               float sum = 0;
#pragma omp simd reduction(+ : sum)
               for (int64_t v = 0; v < vocabulary; ++v) sum += std::exp(row[v] - largest);
               result[token] = row[picks[token]] - largest - std::log(sum);
             }
             return out;
           }}};
}
static const sample::Registration registration(cases);
