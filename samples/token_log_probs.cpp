// Log-probability of each target token: a log_softmax over the vocabulary per token,
// then a data-dependent read of the target's entry. Batch 64, sequence 512, vocab 1000.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

void token_log_probs(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
#pragma vmap
    for (int64_t t = 0; t < logits.size(1); ++t)
      out[b][t] = log_softmax(logits[b][t], 0)[targets[b][t].item<int64_t>()];
}

static sample::CaseList cases() {
  manual_seed(8);
  const int64_t batch = 64, sequence = 512, vocabulary = 1000;
  const Tensor logits = randn({batch, sequence, vocabulary}).to(sample::device());
  const Tensor targets = randint(0, vocabulary, {batch, sequence}).to(sample::device());
  return {{"per-token log-prob gather 64x512, vocab 1000", batch, [=](int64_t count) {
             Tensor out = zeros({count, sequence}, sample::device());
             token_log_probs(logits.narrow(0, 0, count), targets.narrow(0, 0, count), out);
             return out;
           }}};
}
static const sample::Registration registration(cases);
