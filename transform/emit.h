//===- emit.h - Print the batched C++ of a vmap loop --------------*- C++ -*-===//
//
// Pass 4 of clang-vmap: readable C++ with the user's names, one statement per
// original statement (each with a trailing `// line N`), fixed `_b_` names
// for generated ones, the pragma removed. Loop-invariant code is copied
// verbatim from the source.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_EMIT_H
#define CLANG_VMAP_EMIT_H

#include "batch.h"

namespace clang_vmap {

/// The replacement of the pragma and its loop. Outcome.Batched is false (with
/// WhyNot set) only if the plan holds a node the printer cannot print.
/// \p Check (--check): the loop also runs as written, on the same state, and
/// every output and accumulator of the two is compared at run time.
LoopOutcome emit(const BatchPlan &Plan, bool Check = false);

} // namespace clang_vmap

#endif
