//===- emit_printer.h - The printer behind emit (internal to emit) -------===//
//
// One Printer prints one BatchPlan: a vmap loop (run()) or a batched clone of
// a called function (clone()). Its members are defined in emit.cpp (the
// loop and clones), emit_expr.cpp (expressions), emit_statements.cpp
// (statements), emit_control.cpp (per-example control flow under mask
// frames), emit_kernel.cpp (compiled kernels) and emit_check.cpp (--check).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "ast_util.h"
#include "batch.h"
#include "emit.h"
#include "fuse.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include <optional>
#include <string>
#include <vector>

namespace clang_vmap::emit_detail {

using namespace clang;

/// The original loop as the overlap guard and --check run it: one level in,
/// without the `#pragma vmap` lines of its nested loops (they would be
/// batched again by a second run of the tool, and the copy must stay a plain
/// loop).
std::string fallbackCopy(StringRef Original);

struct Edit {
  unsigned Begin, End;
  std::string Text;
};

class Printer {
public:
  /// \p Check: a loop runs as written too, and the two are compared.
  Printer(const BatchPlan &Plan, CloneNames &Names, bool Check = false)
      : Plan(Plan), Names(Names), Check(Check), A(Plan.Analysis),
        Context(*A.Context),
        SM(Context.getSourceManager()),
        Taken(namesUsedIn(A.Loop ? A.Loop->Function : A.Callee)),
        Alias(freshName("vb", Taken)), ArgsName(freshName("_b_args", Taken)),
        ReturnsName(freshName("_b_returns", Taken)) {}

  LoopOutcome run();
  /// The batched clone of a function and where it goes: right after the
  /// function, where everything its body names is declared; for a function
  /// declared before its definition, also the clone's declaration after that
  /// first declaration (a loop between the two calls it).
  std::vector<std::pair<SourceLocation, std::string>> clone();

private:
  // Expressions.
  std::string expr(const Expr *E);
  std::string call(const CallExpr *Call, Lowering How);
  std::string perExample(const CallExpr *Call);
  std::string args(llvm::ArrayRef<const Expr *> Args);
  std::string splice(SourceRange Range, std::vector<Edit> Edits);
  std::string spliceChildren(const Expr *E);
  bool offsets(SourceRange Range, unsigned &Begin, unsigned &End,
               FileID *File = nullptr);
  std::string original(const Expr *E);
  void collectEdits(const Expr *E, std::vector<Edit> &Edits);
  std::optional<std::string> fromScratch(const Expr *E);
  std::string writtenType(const ExplicitCastExpr *Cast);
  std::optional<std::string> fused(const Expr *E);
  std::string kernel(const Expr *Root, const FusedChain &Chain);
  std::string scalarKernel(const Expr *Root, const FusedChain &Chain);
  std::string inlinedHelper(const CallExpr *Call);
  std::string asWritten(SourceRange Range, const FusedChain &Chain,
                        bool Lanes = false);
  void hoistViews(const FusedChain &Chain, unsigned Begin, unsigned End,
                  std::vector<Edit> &Edits);
  std::string canonicalSpelling(QualType Type) const;
  static std::string reindented(std::string Text, const std::string &Column,
                                const std::string &Indent);
  bool batched(const Expr *E) const { return A.isBatched(E); }
  bool inTemplate() const;
  std::optional<std::string> unsignedForm(const Expr *E);
  bool mayRaise(const Expr *E) const;
  /// Whether \p E, an operand C++ may skip or evaluate after another, runs
  /// under a mask, after the operands before it (Note [Masked operands]).
  bool masked(const Expr *E) const { return mayRaise(E) || writes(E); }
  bool writes(const Expr *E) const;
  std::string maskedOperand(const Expr *E);
  /// \p Member of the batched API, through this function's alias of it.
  std::string vb(StringRef Member) const { return Alias + "::" + Member.str(); }
  std::string deviceCode(StringRef Lambda) const;
  /// What a batched local of type \p T is declared as: vb::Value, or a
  /// std::tuple of them for a tuple of Tensors (sort, topk).
  std::string batchedType(QualType T) const;

  // Statements.
  void stmt(const Stmt *S, unsigned Indent);
  void block(const Stmt *S, unsigned Indent);
  void level(const ForStmt *For, unsigned Indent, bool TopLevel);
  /// One statement's line; in a loop (not a clone), \p Profiled ones start
  /// with vb::profile_line(): all but comments, jumps and `case` labels.
  void line(unsigned Indent, const std::string &Text, const Stmt *Origin,
            bool Profiled = true);
  std::string decl(const DeclStmt *S);
  std::string scalarInit(const clang::VarDecl *Var, const clang::Expr *Init);
  std::string forHeader(const ForStmt *For, const std::string &Frame = "");
  void promote(const clang::VarDecl *Var, unsigned Indent, bool AtDeclaration);
  // --check (Note [Check mode] in batched.hpp): the block's start, which runs
  // the loop as written, and its end, which compares the outputs.
  std::string checkPrologue(unsigned Indent, StringRef Original);
  std::string checkEpilogue(unsigned Indent);
  // Per-example control flow (Note [Control masks] in batched.hpp).
  bool control(const Stmt *S, unsigned Indent);
  void loop(const Stmt *S, unsigned Indent);
  void switchStmt(const SwitchStmt *Switch, unsigned Indent);
  std::string returnValue(const Expr *Value);

  std::string fail(const Twine &Why, SourceRange At = {}) {
    if (Error.empty()) {
      Error = Why.str();
      ErrorRange = At;
    }
    return "";
  }

  const BatchPlan &Plan;
  CloneNames &Names;
  bool Check;
  const LoopAnalysis &A;
  ASTContext &Context;
  SourceManager &SM;
  std::string Out;
  std::string Error;
  SourceRange ErrorRange;
  unsigned NumWheres = 0;
  /// Note [Generated names]: the user's names in this function, and ours.
  llvm::StringSet<> Taken;
  std::string Alias;    ///< of vmap::batched
  std::string ArgsName; ///< of a per-example fallback's lambda
  std::string ReturnsName; ///< of an early-return frame (vb::Returns)
  unsigned NumLoops = 0;
  unsigned NumSwitches = 0;
  std::vector<std::string> CheckNames; ///< of each output's vb::CheckedOutput
  /// The mask frame of each masked control, by the name it has in the output.
  llvm::DenseMap<const Stmt *, std::string> ControlNames;
  /// The kernel whose lambda is being printed (its operands print as its
  /// parameters), or null.
  const FusedChain *Kernel = nullptr;
  /// The calls printed as lambdas in kernels: the plan's, or, in a function's
  /// body printed in a kernel, those of the plan whose kernel it is.
  const llvm::DenseSet<const CallExpr *> *HelpersInKernels =
      &Plan.Fusion.HelpersInKernels;
  /// The indentation of the statement being printed (a kernel's region is
  /// printed one level in).
  unsigned StatementIndent = 0;
  /// The expression statement (or `for` increment) being printed: its value
  /// is unused.
  const Expr *DiscardedValue = nullptr;
};

} // namespace clang_vmap::emit_detail
