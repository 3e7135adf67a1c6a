// token_log_probs (samples/token_log_probs.cpp) by hand in LibTorch: one log_softmax over
// the vocabulary dim, then a gather of every target.
#include <torch/types.h>

#include "harness/sample.hpp"

static sample::CaseList cases() {
  torch::manual_seed(8);
  const int64_t batch = 64, sequence = 512, vocabulary = 1000;
  const torch::Tensor logits = torch::randn({batch, sequence, vocabulary}).to(sample::device());
  const torch::Tensor targets =
      torch::randint(0, vocabulary, {batch, sequence}).to(sample::device());
  return {{"per-token log-prob gather 64x512, vocab 1000", batch, [=](int64_t count) {
             torch::Tensor out = torch::zeros({count, sequence}, sample::device());
             const torch::Tensor log_probs = torch::log_softmax(logits.narrow(0, 0, count), 2);
             out.copy_(log_probs.gather(2, targets.narrow(0, 0, count).unsqueeze(2)).squeeze(2));
             return out;
           }}};
}
static const sample::Registration registration(cases);
