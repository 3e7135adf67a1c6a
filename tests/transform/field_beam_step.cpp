// Ported from a fairseq-style beam-search step without topk: for each sentence, the best
// flat index over beam x vocabulary scores, split into the beam it extends (`/`) and the
// token it appends (`%`), plus a running length penalty.
#include <vmap/vmap.hpp>
#include <cmath>
#include <cstdint>
#include <iostream>
using namespace vmap;

void beam_step(const Tensor& scores, const Tensor& lengths, Tensor& beams, Tensor& tokens,
               Tensor& best, int64_t vocab) {
#pragma vmap
  for (int64_t s = 0; s < scores.size(0); ++s) {
    Tensor flat_scores = scores[s].reshape({-1});
    int64_t flat = flat_scores.argmax().item<int64_t>();
    int64_t beam = flat / vocab;
    int64_t token = flat % vocab;
    beams[s] = beam;
    tokens[s] = token;
    int64_t length = lengths[s][beam].item<int64_t>() + 1;
    best[s] = flat_scores[flat] / std::pow(static_cast<double>(length), 0.6);
  }
}
// CHECK-LABEL: void beam_step(
// CHECK: vb::Value beam = flat / vocab;
// CHECK-NEXT: vb::Value token = flat % vocab;

int main() {
  const int64_t sentences = 3, beam = 4, vocab = 7;
  Tensor scores = (arange(sentences * beam * vocab).reshape({sentences, beam, vocab}).to(kFloat) * 1.7).sin();
  Tensor lengths = (arange(sentences * beam).reshape({sentences, beam}) % 5) + 1;
  Tensor beams = zeros({sentences}, kInt64), tokens = zeros({sentences}, kInt64);
  Tensor best = zeros({sentences}, kFloat64);
  beam_step(scores, lengths, beams, tokens, best, vocab);
  std::cout << beams << "\n" << tokens << "\n" << best << "\n";
}


// RUN: %clang-vmap %s -- %flags | %strip | %FileCheck %s
