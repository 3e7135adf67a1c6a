//===- fuse_scalar.cpp - Scalar kernels of per-example control flow -------===//
//
// The scalar-region half of the Fuser (fuse.cpp): the stores of a C++ scalar
// whose region holds per-example control flow, run as written, one example at
// a time, by vb::fused_scalar.
//
// Note [Fused control flow]
// Per-example control flow over C++ scalars (ISPC's Mandelbrot: a `while` whose
// condition and body read `float`s and `int`s of each example) runs batched
// with masks (Note [Control masks] in batched.hpp): every iteration several
// runtime ops over every example, until the last example leaves. Where each
// example's scalars are independent of the others' (they always are: the
// statements are per example), the loop as written, run once per example, is
// the same computation: a scalar kernel (Note [Scalar kernels] in
// rules/include/vmap/fused_scalar.hpp), no masks inside, each example its own
// trip count, as the plain loop. A store `out[i] = v` of a C++ scalar with the
// run of statements before it (its region) becomes
//
//   vb::at(out, i) = vb::fused_scalar([](float c, int max_iter) {
//     int k = 0;                              // the region, as written
//     while (...) { ... }
//     return k;
//   }, vb::at(x, i).item<float>(), max_iter);
//
// where:
//   - the region's statements are declarations of C++ scalar locals (no
//     references, no statics), expression statements, blocks, `while`, `do`,
//     plain `for`, `if`/`else`, and `break`/`continue` of the region's own
//     loops, and no other kernel;
//   - its code is C++ scalar arithmetic on its locals: built-in operators,
//     casts, `?:`, the <cmath> functions the op table lists
//     (kCmathFunctions), and calls of functions of this file that take and
//     return C++ scalars by value and whose bodies are such code on their
//     parameters and locals, `return`s included (SPEC's early return per
//     example: the kernel calls the function as written); an assignment or
//     `++` writes one of its locals;
//   - a tensor it subscripts at an index that reads its locals (`x[i][k]` in
//     `x[i][k].item<float>()`, or the stored value `input[i][k]`) is read
//     element by element (Note [Element reads] in
//     rules/include/vmap/fused_scalar.hpp): the largest part of it that reads
//     none of the locals (`x[i]`; where the code may not reach it, the
//     variable `x`, the rest selected in the kernel) is a `vb::Elements`
//     operand;
//   - each largest part of it that reads none of its locals and is no literal
//     (`x[i].item<float>()`, a per-example C++ scalar of the body, a number
//     the same for every example) is an operand: it must be pure (computed
//     once, before the kernel, for every example), of a type the kernel passes
//     (bool, signed integers, float, double), and where the code may not
//     reach it (a loop's body, a branch, the right of `&&`) a variable or a
//     size, which cannot raise an error; `float c = e;` at the region's top
//     becomes the parameter `float c`, which the kernel may change (a copy);
//   - at least one operand is per example, the stored value has a type the
//     kernel returns (or is such an element, which it returns as it is), and
//     the destination reads none of the region's locals;
//   - the region holds per-example control flow, or reads elements once per
//     example (no loop): a plain loop stepping through elements with neither
//     runs faster as batched ops over every example at once than one example
//     at a time with every read checked;
//   - the region's locals are dead after the store (nothing else names them).
// The region is the longest such run, else a shorter one, else none: the
// masked loops stay (two results of one loop, a call of a function that
// reads more than its parameters). Parameters have the types the
// code reads them as: the local's declared type, else the operand's C++ type.
// The kernel runs only the examples of the live mask: one inside a
// per-example `if` is as guarded as the code it replaces.
//
//===----------------------------------------------------------------------===//

#include "analyse.h"
#include "ast_util.h"
#include "fuse_detail.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace clang_vmap::fuse_detail {
namespace {

/// The scalar kernel of one store (ScalarKernels::longest).
class ScalarRegion {
public:
  ScalarRegion(const KernelChoice &K,
               llvm::DenseMap<const FunctionDecl *, bool> &ScalarFunctions)
      : K(K), A(K.A), Context(K.Context), Result(K.Result),
        ScalarFunctions(ScalarFunctions) {}

  /// Whether \p S may be a statement of a scalar region, as written: C++
  /// scalar locals, expressions, and the control flow of a function body
  /// (\p Loops: the loops of the region around it, which its `break` and
  /// `continue` may leave). What it reads is checked in buildScalar().
  bool mayBeInScalarRegion(const Stmt *S, unsigned Loops,
                           bool Returns = false) const {
    if (!S || inMacro(S) || Result.InRegions.count(S))
      return false;
    auto Inside = [&](const Stmt *Child, unsigned Depth) {
      return !Child || mayBeInScalarRegion(Child, Depth, Returns);
    };
    if (isa<ReturnStmt>(S))
      return Returns;
    if (const auto *Declaration = dyn_cast<DeclStmt>(S))
      return llvm::all_of(Declaration->decls(), [](const Decl *D) {
        const auto *Var = dyn_cast<VarDecl>(D);
        return Var && Var->hasLocalStorage() && isScalarType(Var->getType()) &&
               !Var->getType()->isReferenceType() &&
               !Var->getType().isVolatileQualified() &&
               (!Var->hasInit() || Var->getInitStyle() == VarDecl::CInit);
      });
    if (isa<Expr>(S))
      return !A.Reductions.count(cast<Expr>(S));
    if (const auto *Compound = dyn_cast<CompoundStmt>(S))
      return llvm::all_of(Compound->body(), [&](const Stmt *Child) {
        return Inside(Child, Loops);
      });
    if (const auto *While = dyn_cast<WhileStmt>(S))
      return !While->getConditionVariable() &&
             Inside(While->getBody(), Loops + 1);
    if (const auto *Do = dyn_cast<DoStmt>(S))
      return Inside(Do->getBody(), Loops + 1);
    if (const auto *For = dyn_cast<ForStmt>(S))
      return !A.levelOf(For) && !For->getConditionVariable() &&
             Inside(For->getInit(), Loops) && Inside(For->getBody(), Loops + 1);
    if (const auto *If = dyn_cast<IfStmt>(S))
      return !If->getInit() && !If->getConditionVariable() &&
             !If->isConsteval() && !If->isConstexpr() &&
             Inside(If->getThen(), Loops) && Inside(If->getElse(), Loops);
    if (isa<BreakStmt, ContinueStmt>(S))
      return Loops > 0;
    return isa<NullStmt>(S);
  }

  /// Whether the kernel may call \p F as written: a function of this file,
  /// C++ scalars in (by value) and out, whose body is the code of a scalar
  /// region on its parameters and locals, `return` included, reading nothing
  /// else (an early return per example: SPEC's callee form).
  bool isScalarFunction(const FunctionDecl *F, unsigned Depth = 0) {
    const FunctionDecl *Definition = F ? F->getDefinition() : nullptr;
    if (!Definition || Depth > 4 || Definition->isVariadic() ||
        isa<CXXMethodDecl>(Definition) ||
        Definition->isTemplateInstantiation() ||
        !isInRewrittenFile(Context.getSourceManager(),
                           Definition->getLocation()) ||
        !isKernelType(Definition->getReturnType()))
      return false;
    auto Known = ScalarFunctions.find(Definition);
    if (Known != ScalarFunctions.end())
      return Known->second;
    ScalarFunctions[Definition] = false; // until shown (recursion)
    FusedChain Scratch;
    for (const ParmVarDecl *Parameter : Definition->parameters()) {
      if (!isKernelType(Parameter->getType()) ||
          Parameter->getType()->isReferenceType())
        return false;
      Scratch.Declared.insert(Parameter);
    }
    K.declare(Definition->getBody(), Scratch);
    ScalarDepth = Depth + 1;
    bool Scalar =
        mayBeInScalarRegion(Definition->getBody(), 0, /*Returns=*/true) &&
        collectScalarStatement(Definition->getBody(), Scratch, false, true) &&
        Scratch.Operands.empty();
    ScalarDepth = Depth;
    return ScalarFunctions[Definition] = Scalar;
  }

  /// Whether \p E calls a function of isScalarFunction().
  bool callsScalarFunction(const Stmt *S) {
    if (!S)
      return false;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (isScalarFunction(Call->getDirectCallee(), ScalarDepth))
        return true;
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return callsScalarFunction(Child);
    });
  }

  /// Whether \p S holds control flow that differs per example (what the
  /// batched code runs under masks).
  bool holdsPerExampleControl(const Stmt *S) const {
    if (!S)
      return false;
    if (A.MaskedControls.count(S) || A.MaskedJumps.count(S))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(S))
      if (A.MaskedIfs.count(If))
        return true;
    return llvm::any_of(S->children(), [&](const Stmt *Child) {
      return holdsPerExampleControl(Child);
    });
  }

  /// Whether \p S holds a loop.
  static bool holdsLoop(const Stmt *S) {
    return S && (isa<ForStmt, WhileStmt, DoStmt>(S) ||
                 llvm::any_of(S->children(), holdsLoop));
  }

  /// Whether \p E is a region's local, as an assignment's target.
  bool isDeclaredTarget(const Expr *E, const FusedChain &Chain) const {
    const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParens());
    return Ref && Chain.Declared.count(dyn_cast<VarDecl>(Ref->getDecl()));
  }

  /// The operands of \p E, code of a scalar kernel: each largest part that
  /// reads none of the region's locals and is no literal is computed before
  /// the kernel (it must be a pure C++ scalar; where the code may not reach
  /// it, \p Guarded, one that cannot raise an error: a variable or a size);
  /// the rest must be C++ scalar arithmetic on the region's locals
  /// (operators, casts, <cmath>).
  bool collectScalar(const Expr *E, FusedChain &Chain, bool Guarded) {
    if (!E)
      return true;
    if (!K.mentionsDeclared(E, Chain) && !callsScalarFunction(E)) {
      if (isLiteral(E))
        return true;
      if (isKernelType(E->getType()) && K.isPure(E) &&
          (!Guarded || isa<DeclRefExpr>(E->IgnoreParenImpCasts()) ||
           isMetadataCall(E))) {
        K.addOperand(E, Chain);
        return true;
      }
      // `x[i][3].item<float>()` where the code may not reach it: read in the
      // kernel, where it is written.
      const Expr *Object = itemObject(E);
      return Guarded && Object && collectElements(Object, Chain, Guarded);
    }
    if (const Expr *Object = itemObject(E))
      return collectElements(Object, Chain, Guarded);
    auto Each = [&](auto Children, bool ChildrenGuarded) {
      return llvm::all_of(Children, [&](const Stmt *Child) {
        return collectScalar(cast<Expr>(Child), Chain, ChildrenGuarded);
      });
    };
    if (isa<DeclRefExpr>(E))
      return isScalarType(E->getType());
    // ExprWithCleanups: the end of an element read's temporaries.
    if (isa<ParenExpr, ImplicitCastExpr, CStyleCastExpr, CXXStaticCastExpr,
            CXXFunctionalCastExpr, ExprWithCleanups>(E))
      return isScalarType(E->getType()) && Each(E->children(), Guarded);
    if (const auto *Conditional = dyn_cast<ConditionalOperator>(E))
      return isScalarType(E->getType()) &&
             collectScalar(Conditional->getCond(), Chain, Guarded) &&
             collectScalar(Conditional->getTrueExpr(), Chain, true) &&
             collectScalar(Conditional->getFalseExpr(), Chain, true);
    if (const auto *Binary = dyn_cast<BinaryOperator>(E))
      return (!Binary->isAssignmentOp() ||
              isDeclaredTarget(Binary->getLHS(), Chain)) &&
             collectScalar(Binary->getLHS(), Chain, Guarded) &&
             collectScalar(Binary->getRHS(), Chain,
                           Guarded || Binary->isLogicalOp());
    if (const auto *Unary = dyn_cast<UnaryOperator>(E))
      return Unary->getOpcode() != UO_AddrOf &&
             Unary->getOpcode() != UO_Deref &&
             (!Unary->isIncrementDecrementOp() ||
              isDeclaredTarget(Unary->getSubExpr(), Chain)) &&
             Each(E->children(), Guarded);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      return Callee &&
             (isCmath(Callee, Call->getNumArgs()) ||
              isScalarFunction(Callee, ScalarDepth)) &&
             llvm::all_of(Call->arguments(), [&](const Expr *Arg) {
               return collectScalar(Arg, Chain, Guarded);
             });
    }
    return false;
  }

  /// The operands of \p E, a tensor the kernel reads element by element
  /// (Note [Element reads] in rules/include/vmap/fused_scalar.hpp): the
  /// largest part that reads none of the region's locals, a tensor computed
  /// before the kernel (where the code may not reach it, \p Guarded, a
  /// variable, which cannot raise an error), else `t[k]` of such a tensor
  /// `t` at a C++ scalar `k` of the kernel, selected in the kernel.
  bool collectElements(const Expr *E, FusedChain &Chain, bool Guarded) {
    if (!K.mentionsDeclared(E, Chain) && !callsScalarFunction(E) &&
        isTensorType(E->getType()) && K.isPure(E) &&
        (!Guarded || referencedVar(E))) {
      K.addOperand(E, Chain, nullptr, /*ElementRead=*/true);
      return true;
    }
    const CXXOperatorCallExpr *Subscript = elementSubscript(E);
    return Subscript &&
           collectElements(Subscript->getArg(0), Chain, Guarded) &&
           collectScalar(Subscript->getArg(1), Chain, Guarded);
  }

  /// The operands of \p S, a statement of a scalar region; \p TopLevel:
  /// directly in the region, where `float c = e;` of an operand e becomes
  /// the kernel's parameter `float c`; \p Guarded: the code may not reach it
  /// (collectScalar).
  bool collectScalarStatement(const Stmt *S, FusedChain &Chain, bool TopLevel,
                              bool Guarded) {
    if (!S)
      return true;
    if (const auto *Declaration = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : Declaration->decls()) {
        const auto *Var = cast<VarDecl>(D);
        const Expr *Init = Var->getInit();
        if (TopLevel && Init && Declaration->isSingleDecl() &&
            isKernelType(Var->getType()) && !K.mentionsDeclared(Init, Chain) &&
            !isLiteral(Init)) {
          if (!K.isPure(Init))
            return false;
          K.addOperand(Init, Chain, Var);
          continue;
        }
        if (!collectScalar(Init, Chain, Guarded))
          return false;
      }
      return true;
    }
    if (const auto *E = dyn_cast<Expr>(S))
      return collectScalar(E, Chain, Guarded);
    // A loop's condition is tested at least once (a `do`'s only if its body
    // does not `break`); its body and increment may never run.
    if (const auto *While = dyn_cast<WhileStmt>(S))
      return collectScalar(While->getCond(), Chain, Guarded) &&
             collectScalarStatement(While->getBody(), Chain, false, true);
    if (const auto *Do = dyn_cast<DoStmt>(S))
      return collectScalarStatement(Do->getBody(), Chain, false, true) &&
             collectScalar(Do->getCond(), Chain, true);
    if (const auto *For = dyn_cast<ForStmt>(S))
      return collectScalarStatement(For->getInit(), Chain, false, Guarded) &&
             collectScalar(For->getCond(), Chain, Guarded) &&
             collectScalar(For->getInc(), Chain, true) &&
             collectScalarStatement(For->getBody(), Chain, false, true);
    if (const auto *If = dyn_cast<IfStmt>(S))
      return collectScalar(If->getCond(), Chain, Guarded) &&
             collectScalarStatement(If->getThen(), Chain, false, true) &&
             collectScalarStatement(If->getElse(), Chain, false, true);
    return llvm::all_of(S->children(), [&](const Stmt *Child) {
      return collectScalarStatement(Child, Chain, false, Guarded);
    });
  }

  /// The scalar kernel of \p Root, stored into \p Destination, with the
  /// statements \p Region before it, or std::nullopt where a condition of
  /// Note [Fused control flow] fails.
  std::optional<FusedChain> buildScalar(const Expr *Root,
                                        const Expr *Destination,
                                        ArrayRef<const Stmt *> Region) {
    FusedChain Chain;
    Chain.Scalar = true;
    Chain.Region.assign(Region.begin(), Region.end());
    for (const Stmt *S : Region) {
      if (K.holdsKernel(S))
        return std::nullopt;
      K.declare(S, Chain);
    }
    // A value that is an element of a tensor at an index the region computes
    // (`input[i][k]`): the kernel returns the element (Note [Element reads]).
    const bool ReturnsElements = !isKernelType(Root->getType());
    if (K.mentionsDeclared(Destination, Chain) ||
        (ReturnsElements &&
         (!elementSubscript(Root) || !K.mentionsDeclared(Root, Chain))))
      return std::nullopt;
    for (const Stmt *S : Region)
      if (!collectScalarStatement(S, Chain, /*TopLevel=*/true,
                                  /*Guarded=*/false))
        return std::nullopt;
    if (!(ReturnsElements ? collectElements(Root, Chain, /*Guarded=*/false)
                          : collectScalar(Root, Chain, /*Guarded=*/false)) ||
        llvm::none_of(Chain.Operands, [&](const Expr *Operand) {
          return A.isBatched(Operand);
        }))
      return std::nullopt;
    // Else the batched ops are already one op per statement: a kernel pays
    // where the region has per-example control flow, or reads elements once
    // per example at indices it computes (a gather: one op per element
    // otherwise). A plain loop stepping through elements without control
    // flow stays batched: its ops run over every example at once, faster
    // than the kernel's one example at a time, whose every read is checked.
    if (llvm::none_of(Region,
                      [&](const Stmt *S) { return holdsPerExampleControl(S); }) &&
        (!llvm::is_contained(Chain.ElementReads, true) ||
         llvm::any_of(Region, holdsLoop)))
      return K.whyNot("a plain loop with no per-example control flow runs "
                      "faster as batched ops");
    if (!K.diesAtConsumer(Region, Root, Chain))
      return std::nullopt;
    // Its text is the device program (Note [Scalar kernels on a device] in
    // rules/include/vmap/fused_scalar.hpp) where it means there what it
    // means here: no call of the file's functions (not in the program) and
    // nothing else of the file's (portableText).
    const auto Portable = [&](const Stmt *S) {
      return !callsScalarFunction(S) && portableText(S, Chain);
    };
    Chain.DeviceCode =
        !ReturnsElements && llvm::all_of(Region, Portable) && Portable(Root);
    return Chain;
  }

private:
  const KernelChoice &K;
  const LoopAnalysis &A;
  ASTContext &Context;
  const FusionPlan &Result;
  /// Functions the kernels may call as written (isScalarFunction), and how
  /// deep in such calls the check is.
  llvm::DenseMap<const FunctionDecl *, bool> &ScalarFunctions;
  unsigned ScalarDepth = 0;
};

} // namespace

std::optional<FusedChain>
ScalarKernels::longest(const Expr *Root, const Expr *Destination,
                       ArrayRef<const Stmt *> Before) {
  ScalarRegion Region(Choice, ScalarFunctions);
  std::size_t First = Before.size();
  while (First > 0 && Region.mayBeInScalarRegion(Before[First - 1], 0))
    --First;
  for (std::size_t Start = First; Start < Before.size(); ++Start)
    if (std::optional<FusedChain> Chain =
            Region.buildScalar(Root, Destination, Before.drop_front(Start)))
      return Chain;
  return std::nullopt;
}

} // namespace clang_vmap::fuse_detail
