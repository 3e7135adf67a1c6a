//===- remarks.h - What each vmap loop became, as optimization remarks ----===//
//
// Each top-level vmap loop gets remarks of pass `vmap`, as LLVM's own passes
// report: a Passed remark for a batched loop (its batch levels and the ops
// it batched), Analysis remarks for each per-example fallback and each
// run-time overlap check, a Missed remark with the reason for a loop left
// alone. They are printed as clang remarks when -Rpass=vmap,
// -Rpass-missed=vmap or -Rpass-analysis=vmap ask (--remarks asks for all
// three) and kept as LLVM optimization records for --remarks-file, in the
// YAML that LLVM's opt-viewer renders.
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_REMARKS_H
#define CLANG_VMAP_REMARKS_H

#include "batch.h"
#include "emit.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Remarks/Remark.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/StringSaver.h"
#include <vector>

namespace clang_vmap {

/// The optimization records of a whole run, for --remarks-file.
class RemarkLog {
public:
  /// Keeps \p Remark with copies of the strings it points to.
  void add(llvm::remarks::Remark Remark);
  /// The records as YAML (`--- !Passed` ...), written atomically to \p Path.
  llvm::Error writeYaml(llvm::StringRef Path) const;

private:
  llvm::BumpPtrAllocator Allocator;
  llvm::UniqueStringSaver Strings{Allocator};
  std::vector<llvm::remarks::Remark> Remarks;
};

/// Whether \p Call is one of \p Plan's batched op calls (its NumOps).
bool isBatchedOp(const BatchPlan &Plan, const clang::CallExpr *Call);

/// Reports the remarks of the loops of one translation unit.
class LoopRemarks {
public:
  /// \p Log may be null (no --remarks-file).
  LoopRemarks(clang::CompilerInstance &Compiler, RemarkLog *Log);

  /// A batched loop: its levels, ops, fallbacks and overlap checks.
  void batched(const BatchPlan &Plan);
  /// A loop left alone, and why (the refusal's text), at \p At (the
  /// refusal's location), the loop's pragma as a related location.
  void notBatched(const VmapLoop &Loop, llvm::StringRef Why,
                  clang::SourceLocation At);
  /// After the file's loops: each function cloned in several roles (Note
  /// [Clones in several roles]), at its definition, with each role's clone.
  void cloneRoles(const CloneNames &Names);

  /// A loop in a template is batched once per compiled specialization, but
  /// written once: between these, batched() keeps the first specialization's
  /// remarks and counts the others; the end reports them once, saying how
  /// many were batched, if \p Batched (else the loop's refusal speaks).
  void beginSpecializations();
  void endSpecializations(bool Batched);

private:
  struct Arg {
    std::string Key;
    std::string Value;
    clang::SourceLocation Loc = {}; ///< optional
  };
  struct HeldRemark {
    llvm::remarks::Type Type;
    std::string Name;
    clang::SourceLocation Loc;
    const clang::FunctionDecl *Function;
    std::vector<Arg> Args;
  };
  /// What each statement of \p Plan's body runs as (Note [Statement
  /// remarks] in remarks.cpp).
  void statements(const BatchPlan &Plan);
  void report(llvm::remarks::Type Type, llvm::StringRef Name,
              clang::SourceLocation Loc, const clang::FunctionDecl *Function,
              llvm::ArrayRef<Arg> Args);
  void emit(const HeldRemark &Remark);
  std::optional<llvm::remarks::RemarkLocation>
  location(clang::SourceLocation Loc, std::string &FileStorage) const;

  clang::DiagnosticsEngine &Engine;
  clang::SourceManager &SM;
  clang::CodeGenOptions::OptRemark Passed, Missed, Analysis;
  RemarkLog *Log;
  unsigned SpecializationDepth = 0; ///< templates being batched, nested
  unsigned Specializations = 0;     ///< batched so far, of the outermost
  std::vector<HeldRemark> Held;     ///< the first specialization's
};

} // namespace clang_vmap

#endif
