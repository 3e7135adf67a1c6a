//===- dump.h - --dump-after: the state after each pass ---------*- C++ -*-===//
//
// Printers for the tool's --dump-after option (its own tests read them).
//
//===----------------------------------------------------------------------===//

#ifndef CLANG_VMAP_DUMP_H
#define CLANG_VMAP_DUMP_H

#include "analyse.h"
#include "batch.h"
#include "pipeline.h"
#include "llvm/Support/raw_ostream.h"

namespace clang_vmap {

/// --dump-after=analyse: the levels, batched variables and expressions,
/// reductions, masked ifs and overlap checks of a loop.
void dumpAnalysis(const LoopAnalysis &Analysis, llvm::raw_ostream &OS);
/// --dump-after=batch: each call's lowering.
void dumpPlan(const BatchPlan &Plan, llvm::raw_ostream &OS);
/// --dump-after=fuse: each kernel of the loop and of its clones, and why a
/// statement is not compiled.
void dumpFusion(const BatchPlan &Plan, llvm::raw_ostream &OS);
/// --dump-after=emit: the text emitted for \p Loop.
void dumpEmitted(const VmapLoop &Loop, const clang::ASTContext &Context,
                 const LoopOutcome &Outcome, llvm::raw_ostream &OS);

} // namespace clang_vmap

#endif
