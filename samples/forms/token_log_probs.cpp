// Forms of samples/token_log_probs.cpp (`log_softmax(logits[b][t], 0)[target]`) a user writes
// first: Note [Forms of the seeds] in ../CMakeLists.txt.
#include <vmap/vmap.hpp>

#include "harness/sample.hpp"

using namespace vmap;

// Each sample's forms are linked into one benchmark: names stay in their file.
namespace {

// Tensor lp = log_softmax(...); int64_t k = targets[b][t].item<int64_t>(); out[b][t] = lp[k];
void through_locals(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
#pragma vmap
    for (int64_t t = 0; t < logits.size(1); ++t) {
      Tensor lp = log_softmax(logits[b][t], 0);
      int64_t k = targets[b][t].item<int64_t>();
      out[b][t] = lp[k];
    }
}

// logits[b][t][k] - logits[b][t].logsumexp({0})
void logsumexp(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
#pragma vmap
    for (int64_t t = 0; t < logits.size(1); ++t) {
      Tensor row = logits[b][t];
      out[b][t] = row[targets[b][t].item<int64_t>()] - row.logsumexp({0});
    }
}

// The stable form written out: shift by the max, subtract the log of the sum of exps.
void max_shifted(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
#pragma vmap
    for (int64_t t = 0; t < logits.size(1); ++t) {
      Tensor shifted = logits[b][t] - logits[b][t].amax();
      int64_t k = targets[b][t].item<int64_t>();
      out[b][t] = shifted[k] - shifted.exp().sum().log();
    }
}

// softmax(...).log()
void softmax_log(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
#pragma vmap
    for (int64_t t = 0; t < logits.size(1); ++t)
      out[b][t] = logits[b][t].softmax(0).log()[targets[b][t].item<int64_t>()];
}

// One vmap over the batch; the tokens in a plain inner loop.
void plain_inner_loop(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
    for (int64_t t = 0; t < logits.size(1); ++t)
      out[b][t] = log_softmax(logits[b][t], 0)[targets[b][t].item<int64_t>()];
}

Tensor log_prob(const Tensor& row, int64_t target) {
  return log_softmax(row, 0)[target];
}

void through_a_helper(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
#pragma vmap
    for (int64_t t = 0; t < logits.size(1); ++t)
      out[b][t] = log_prob(logits[b][t], targets[b][t].item<int64_t>());
}

// The target's entry as a C++ float: .item<float>()
void item_of_entry(const Tensor& logits, const Tensor& targets, Tensor& out) {
#pragma vmap
  for (int64_t b = 0; b < logits.size(0); ++b)
#pragma vmap
    for (int64_t t = 0; t < logits.size(1); ++t) {
      float value = log_softmax(logits[b][t], 0)[targets[b][t].item<int64_t>()].item<float>();
      out[b][t] = value;
    }
}

}  // namespace

static sample::CaseList cases() {
  manual_seed(8);
  const int64_t batch = 64, sequence = 512, vocabulary = 1000;
  const Tensor logits = randn({batch, sequence, vocabulary}).to(sample::device());
  const Tensor targets = randint(0, vocabulary, {batch, sequence}).to(sample::device());
  using Form = void (*)(const Tensor&, const Tensor&, Tensor&);
  sample::CaseList list;
  const auto add = [&](const std::string& form, Form f) {
    list.push_back({"per-token log-prob gather 64x512, vocab 1000 :: token_log_probs/" + form,
                    batch,
                    [=](int64_t count) {
                      Tensor out = zeros({count, sequence}, sample::device());
                      f(logits.narrow(0, 0, count), targets.narrow(0, 0, count), out);
                      return out;
                    }});
  };
  add("through_locals", through_locals);
  add("logsumexp", logsumexp);
  add("max_shifted", max_shifted);
  add("softmax_log", softmax_log);
  add("plain_inner_loop", plain_inner_loop);
  add("through_a_helper", through_a_helper);
  add("item_of_entry", item_of_entry);
  return list;
}
static const sample::Registration registration(cases);
