//===- passes.h - The passes over one vmap loop -----------------*- C++ -*-===//
#ifndef CLANG_VMAP_PASSES_H
#define CLANG_VMAP_PASSES_H

#include "emit.h"
#include "pipeline.h"
#include "remarks.h"

namespace clang_vmap {

/// The passes --dump-after names.
enum class Pass { None, Find, Analyse, Batch, Fuse, Emit, Rewrite };

/// What the command line asks of the passes over a loop.
struct PassOptions {
  Pass DumpAfter = Pass::None; ///< print the state after this pass to stderr
  bool CheckMode = false;      ///< --check: emit the checked form
};

/// analyse -> batch -> fuse -> emit over loop \p Top of \p Loops (in each compiled
/// specialization where it is in a template); the passes report their own
/// refusals. \p Conditionals: the file's preprocessor conditionals;
/// \p Names: the names of the file's clones, by role.
LoopOutcome runLoopPasses(clang::ASTContext &Context,
                          llvm::ArrayRef<VmapLoop> Loops, unsigned Top,
                          llvm::ArrayRef<clang::SourceLocation> Conditionals,
                          Diagnostics &Diags, LoopRemarks &Remarks,
                          CloneNames &Names, const PassOptions &Options);

} // namespace clang_vmap

#endif
