//===- fuse.cpp - Pointwise chains emitted as compiled kernels ------------===//
//
// Note [Which chains are fused]
// A chain is a tree of calls of the op table's pointwise ops (rules
// unary_pointwise, binary_pointwise, ternary_where, clamp) that give a
// per-example Tensor, and of this file's functions of such chains (Note
// [Helpers in kernels] in fuse_helpers.cpp); its leaves are whatever else it
// reads (per-example reads, loop-invariant tensors, numbers), which become the
// kernel's operands, except literals, which stay in the kernel (so the C++
// compiler folds `pow(2)` into a multiply, `pow(32)` into five, and a mode
// such as gelu's "tanh" reads as written). A chain becomes a kernel where it
// is consumed whole:
//   - by a reduction of the whole example (`.sum()`, `mean(e)`: the reduce
//     family's reduce_all rule; `.norm()`, `norm(e, 2)`: the root of the
//     kernel's sum of squares), or a sum or mean over one dim given by
//     literals (`.sum(1)`, `mean(e, -1)`: compiled where it is the example's
//     innermost), the reduction running over the kernel's elements without
//     materialising them;
//   - by an accumulator `acc += e` / `acc -= e` into a Tensor;
//   - by a store `out[i] = e` of at least two runtime passes (one op over
//     materialised tensors is already one runtime call into the destination;
//     a pow by an integer past 3, `x[i].pow(32)`, is a multiply pass per
//     squaring there, one pass here).
// A chain whose leaves hold another kernel is left to the batched ops (one
// kernel per statement keeps the rewrite readable). The statements before the
// consumer that compute the chain's locals run inside the kernel too (Note
// [Fused regions]).
//
// Note [Fused regions]
// A chain spread over statements through per-example locals,
//
//   Tensor value = x[i];
//   for (int round = 0; round < 5; ++round)
//     value = value * value;
//   out[i] = value;
//
// is one kernel too: the consumer's chain (here the local itself) with the run
// of statements just before it, printed as written inside the lambda, so the
// C++ compiler sees the whole computation of one element:
//
//   vb::at(out, i) = vb::fused([](auto value) {
//     for (int round = 0; round < 5; ++round) { value = value * value; }
//     return value;
//   }, vb::at(x, i));  // lines 12-15
//
// A region's statements are declarations of Tensor locals (not references)
// with an initialiser, `=` and compound assignments (`v *= e`) of chains to
// the region's locals, and plain `for` loops of those whose header reads only
// its own counters and numbers the same for every example (passed to the
// kernel as operands). A declaration whose initialiser is no op (`Tensor value
// = x[i];`) becomes a parameter taken by value, which the kernel may rebind
// (or write in place: of `x[i].clone()` the parameter is x[i], already a copy).
// The region is the longest such run for which these hold, else a shorter
// one, else none (today's statements):
//   - the region's variables are dead after the consumer: nothing else names
//     them (no read, write, capture, reference or address), since they exist
//     only inside the kernel;
//   - what else it reads (the leaves) names nothing the region declares (`f(v)`
//     or `v.matmul(w)` of a local ends the region before it) and has no side
//     effect: it is computed once, before the kernel, as an operand;
//   - a local written in place holds only tensors with elements of their own
//     (an op's result, `x[i].clone()`), and no other local is bound to it: a
//     Tensor copy shares its elements (`Tensor v = x[i]; v += 1;` writes x,
//     Note [Aliases in the body] in analyse.cpp), a parameter does not;
//   - every tensor operand reaches the consumed value however many times the
//     loops run (a must-analysis; a loop may run zero times unless its literal
//     bounds say otherwise): the kernel's shape is the broadcast of its
//     operands' shapes, which must be the shape the eager ops give the value.
// A local rebound to a value of another dtype (`v = v > 0`) is not a C++
// variable's type change: Element's assignment throws on the kernel's first
// element, and the batched ops run the lambda (fused_element.hpp).
//
//===----------------------------------------------------------------------===//

#include "fuse.h"
#include "ast_util.h"
#include "batch.h"
#include "fuse_detail.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include <cmath>
#include <functional>
#include <optional>
#include <vmap/rules/op_table.hpp>

using namespace clang;
namespace rules = vmap::rules;

namespace clang_vmap {
namespace {

using namespace fuse_detail;

class Fuser : KernelChoice {
public:
  explicit Fuser(const BatchPlan &Plan)
      : KernelChoice(Plan.Analysis), Plan(Plan) {}

  FusionPlan run() {
    scan(Body, {});
    return std::move(Result);
  }

private:
  /// A call of a pointwise op giving a per-example Tensor, or of a function
  /// of this file that computes one (Note [Helpers in kernels]).
  bool isNode(const Expr *E) const {
    const auto *Call = dyn_cast<CallExpr>(E);
    return Call && (isElementOp(Call, A) ||
                    (A.isBatched(Call) && helper(Call).has_value()));
  }

  /// The ops of the file's function \p Call calls, where a kernel may compute
  /// it (Note [Helpers in kernels] in fuse_helpers.cpp): found once a call.
  std::optional<unsigned> helper(const CallExpr *Call) const {
    auto [At, New] = Helpers.try_emplace(Call);
    if (New)
      At->second = helperOps(Call, Plan);
    return At->second;
  }

  /// The runtime passes node \p Call takes: one, but two (several) for a pow
  /// by a whole-number literal past its one-pass forms (-2 to 3), which the
  /// runtime computes by repeated squaring, a multiply pass per step (Note [pow
  /// strength reduction] in runtime/src/pointwise.cpp), and a kernel in one.
  unsigned passesOf(const CallExpr *Call) const {
    // A helper's ops (Note [Helpers in kernels]): one of one op is one pass
    // at a store, as that op written in place (a kernel runs exp or sqrt an
    // element at a time, the runtime's op in SIMD).
    if (opOf(Call) == rules::kNoOp)
      return helper(Call).value_or(0);
    llvm::SmallVector<const Expr *, 4> Operands = operandsOf(Call);
    if (rules::kOpTable[opOf(Call)].name != "pow" || Operands.size() != 2 ||
        !isLiteral(Operands[1]))
      return 1;
    Expr::EvalResult Exponent;
    if (!stripImplicit(Operands[1])->EvaluateAsRValue(Exponent, Context))
      return 1;
    const APValue &Value = Exponent.Val;
    double E = Value.isInt() ? static_cast<double>(Value.getInt().getExtValue())
               : Value.isFloat() ? Value.getFloat().convertToDouble()
                                 : 0;
    return (E > 3 || E < -2) && std::trunc(E) == E ? 2 : 1;
  }

  unsigned countNodes(const Expr *E) const {
    E = stripImplicit(E);
    if (!isNode(E))
      return 0;
    unsigned Count = passesOf(cast<CallExpr>(E));
    for (const Expr *Operand : operandsOf(cast<CallExpr>(E)))
      Count += countNodes(Operand);
    return Count;
  }

  /// The leaves of the chain under \p E, added to \p Chain; false where the
  /// chain reads the region's values through something that is not fused,
  /// or (in the region, \p Moved: computed before the kernel, once) a leaf
  /// is not pure.
  bool collect(const Expr *E, FusedChain &Chain, bool Moved) {
    const Expr *Stripped = stripImplicit(E);
    if (isNode(Stripped)) {
      for (const Expr *Operand : operandsOf(cast<CallExpr>(Stripped)))
        if (!collect(Operand, Chain, Moved))
          return false;
      return true;
    }
    const VarDecl *Var = referencedVar(Stripped);
    if (isLiteral(Stripped) || (Var && Chain.Declared.count(Var)))
      return true;
    if (mentionsDeclared(Stripped, Chain)) {
      whyNot(readsLocal(Stripped));
      return false;
    }
    if (Moved && !isPure(Stripped)) {
      whyNot("'" + sourceText(Context, Stripped->getSourceRange()).str() +
             "' may have an effect, and would run once before the kernel");
      return false;
    }
    addOperand(E, Chain);
    return true;
  }

  /// The op \p E calls that a kernel cannot hold, in words (`'matmul', a
  /// library op`), or empty where \p E is no such call (for whyNot).
  static std::string notElementWise(const Expr *E) {
    const auto *Call = dyn_cast<CallExpr>(stripImplicit(E));
    std::string Name = Call ? calleeName(Call) : "";
    if (Name.empty() || Name == "operator[]" || Name == "operator=")
      return "";
    return "'" + Name + "', " +
           (isLibraryOp(Call) ? "a library op"
                              : "which has no element-wise form");
  }

  /// The line \p S begins at, as text (for whyNot).
  std::string lineText(const Stmt *S) const {
    return std::to_string(lineOf(Context, S->getBeginLoc()));
  }

  /// Why \p E, a value to compute in a kernel, cannot be.
  static std::string noElementForm(const Expr *E) {
    std::string Op = notElementWise(E);
    return Op.empty() ? "no element-wise op to compile" : "calls " + Op;
  }

  /// Why \p E, which reads a local of the kernel, cannot run before it.
  std::string readsLocal(const Expr *E) const {
    std::string Op = notElementWise(E);
    return "it reads a local of the kernel through " +
           (Op.empty()
                ? "'" + sourceText(Context, E->getSourceRange()).str() + "'"
                : Op);
  }

  /// The header of a region's loop \p E (its initialiser, condition or
  /// increment): its counters stay in the kernel's text; what else it reads
  /// must be a number the same for every example, passed as an operand.
  bool collectHeader(const Expr *E, FusedChain &Chain) {
    if (!E)
      return true;
    const Expr *Stripped = stripImplicit(E);
    if (isLiteral(Stripped))
      return true;
    const VarDecl *Var = referencedVar(Stripped);
    if (Var && Chain.Declared.count(Var))
      return !isTensorType(Var->getType());
    if (!mentionsDeclared(Stripped, Chain)) {
      if (A.isBatched(Stripped) || !isScalarType(Stripped->getType()) ||
          !isPure(Stripped))
        return false;
      addOperand(E, Chain);
      return true;
    }
    auto CounterOnly = [&](const Expr *Target) {
      const VarDecl *Counter = referencedVar(Target);
      return Counter && Chain.Declared.count(Counter) &&
             !isTensorType(Counter->getType());
    };
    if (const auto *Binary = dyn_cast<BinaryOperator>(Stripped))
      return (!Binary->isAssignmentOp() || CounterOnly(Binary->getLHS())) &&
             collectHeader(Binary->getLHS(), Chain) &&
             collectHeader(Binary->getRHS(), Chain);
    if (const auto *Unary = dyn_cast<UnaryOperator>(Stripped))
      return (!Unary->isIncrementDecrementOp() ||
              CounterOnly(Unary->getSubExpr())) &&
             Unary->getOpcode() != UO_AddrOf &&
             Unary->getOpcode() != UO_Deref &&
             collectHeader(Unary->getSubExpr(), Chain);
    return false;
  }

  //===-- regions (Note [Fused regions]) ----------------------------------===//

  /// A Tensor local a region may declare: not a reference, not shared by
  /// every example until written (Note [Promoted locals] in emit.cpp).
  bool isRegionLocal(const VarDecl *Var) const {
    return Var && isTensorType(Var->getType()) &&
           !Var->getType()->isReferenceType() && !A.PromotedLocals.count(Var);
  }

  /// Whether \p S may be a statement of a region, as written (what it reads
  /// is checked in build()).
  bool mayBeInRegion(const Stmt *S) const {
    if (!S || inMacro(S))
      return false;
    if (const auto *Declaration = dyn_cast<DeclStmt>(S)) {
      const auto *Var = Declaration->isSingleDecl()
                            ? dyn_cast<VarDecl>(Declaration->getSingleDecl())
                            : nullptr;
      // `Tensor v = e;` (not `Tensor v;`, whose parameter would have no text).
      return isRegionLocal(Var) && Var->hasInit() &&
             Var->getInitStyle() == VarDecl::CInit &&
             !isa<CXXConstructExpr>(stripImplicit(Var->getInit()));
    }
    if (const auto *Assign = assignmentOf(S)) {
      const auto *E = cast<Expr>(S);
      if (A.Reductions.count(E) ||
          A.PromotingAssignments.count(stripImplicit(E)) ||
          !isRegionLocal(referencedVar(Assign->getArg(0))))
        return false;
      if (Assign->getOperator() == OO_Equal)
        return true;
      // `v *= e` computes `v * e` in the kernel (Element's compound ops).
      std::string Name = calleeName(Assign);
      return rules::find_op(Name, rules::OpForm::compound_assign) !=
                 rules::kNoOp &&
             rules::has_element_form(StringRef(Name).drop_back());
    }
    if (const auto *For = dyn_cast<ForStmt>(S)) {
      if (A.levelOf(For) || A.MaskedControls.count(For) ||
          (For->getInit() && !isa<DeclStmt>(For->getInit())))
        return false;
      if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
        for (const Decl *D : Init->decls()) {
          const auto *Counter = dyn_cast<VarDecl>(D);
          if (!Counter || !isScalarType(Counter->getType()) ||
              Counter->getType()->isReferenceType())
            return false;
        }
      return llvm::all_of(statementsOf(For->getBody()), [&](const Stmt *Child) {
        return mayBeInRegion(Child);
      });
    }
    return false;
  }

  /// The value \p E clones (`x[i]` of `x[i].clone()`), else \p E: a local's
  /// parameter is its own copy of each element already, so `Tensor v =
  /// x[i].clone(); v *= v;` reads x[i] in the kernel, with no clone pass
  /// before it.
  static const Expr *uncloned(const Expr *E) {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(stripImplicit(E));
    if (!Call || Call->getNumArgs() != 0 || !Call->getMethodDecl() ||
        Call->getMethodDecl()->getName() != "clone" ||
        !isInVmapNamespace(Call->getMethodDecl()) ||
        !isTensorType(Call->getImplicitObjectArgument()->getType()))
      return E;
    return Call->getImplicitObjectArgument();
  }

  /// The leaves of region statement \p S; \p TopLevel: directly in the
  /// region, where a declaration of an operand is its parameter.
  bool collectStatement(const Stmt *S, FusedChain &Chain, bool TopLevel) {
    if (const auto *Declaration = dyn_cast<DeclStmt>(S)) {
      const auto *Var = cast<VarDecl>(Declaration->getSingleDecl());
      const Expr *Init = stripImplicit(Var->getInit());
      if (TopLevel && !isNode(Init) && !isLiteral(Init) &&
          !(referencedVar(Init) && Chain.Declared.count(referencedVar(Init)))) {
        if (mentionsDeclared(Init, Chain)) {
          whyNot(readsLocal(Init));
          return false;
        }
        if (!isPure(Init))
          return false;
        addOperand(uncloned(Var->getInit()), Chain, Var);
        return true;
      }
      return collect(Var->getInit(), Chain, /*Moved=*/true);
    }
    if (const auto *Assign = assignmentOf(S))
      return Chain.Declared.count(referencedVar(Assign->getArg(0))) &&
             collect(Assign->getArg(1), Chain, /*Moved=*/true);
    const auto *For = cast<ForStmt>(S);
    if (const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit()))
      for (const Decl *D : Init->decls())
        if (!collectHeader(cast<VarDecl>(D)->getInit(), Chain))
          return false;
    if (!collectHeader(For->getCond(), Chain) ||
        !collectHeader(For->getInc(), Chain))
      return false;
    return llvm::all_of(statementsOf(For->getBody()), [&](const Stmt *Child) {
      return collectStatement(Child, Chain, false);
    });
  }

  /// The ops of \p S, a loop's counted twice (it repeats them).
  unsigned countStatementOps(const Stmt *S) const {
    if (const auto *Declaration = dyn_cast<DeclStmt>(S))
      return countNodes(cast<VarDecl>(Declaration->getSingleDecl())->getInit());
    if (const auto *Assign = assignmentOf(S))
      return countNodes(Assign->getArg(1)) +
             (Assign->getOperator() != OO_Equal);
    unsigned Count = 0;
    for (const Stmt *Child : statementsOf(cast<ForStmt>(S)->getBody()))
      Count += 2 * countStatementOps(Child);
    return Count;
  }

  /// Note [Fused regions]: a local written in place holds only tensors with
  /// elements of their own (an op's result, a clone), and no other local is
  /// bound to it.
  bool inPlaceWritesAreFresh(ArrayRef<const Stmt *> Region,
                             const FusedChain &Chain) const {
    llvm::DenseSet<const VarDecl *> WrittenInPlace;
    llvm::SmallVector<std::pair<const VarDecl *, const Expr *>, 8> Bindings;
    std::function<void(const Stmt *)> Visit = [&](const Stmt *S) {
      if (const auto *Declaration = dyn_cast<DeclStmt>(S)) {
        const auto *Var = dyn_cast<VarDecl>(Declaration->getSingleDecl());
        if (Var && isTensorType(Var->getType()))
          Bindings.push_back({Var, Var->getInit()});
      } else if (const auto *Assign = assignmentOf(S)) {
        const VarDecl *Target = referencedVar(Assign->getArg(0));
        if (Assign->getOperator() == OO_Equal)
          Bindings.push_back({Target, Assign->getArg(1)});
        else
          WrittenInPlace.insert(Target);
      } else if (const auto *For = dyn_cast<ForStmt>(S)) {
        for (const Stmt *Child : statementsOf(For->getBody()))
          Visit(Child);
      }
    };
    for (const Stmt *S : Region)
      Visit(S);
    return llvm::all_of(Bindings, [&](const auto &Binding) {
      const Expr *Value = stripImplicit(Binding.second);
      return (!WrittenInPlace.count(Binding.first) || hasOwnElements(Value)) &&
             !WrittenInPlace.count(referencedVar(Value));
    });
  }

  /// Note [Fused regions]: the tensor operands that certainly reach each
  /// local's value (a must-analysis over the region's statements).
  class Reach {
  public:
    using Set = llvm::BitVector;
    using State = llvm::DenseMap<const VarDecl *, Set>;

    Reach(const Fuser &F, const FusedChain &Chain) : F(F), Chain(Chain) {}

    Set valueOf(const Expr *E, const State &S) const {
      const Expr *Stripped = stripImplicit(E);
      Set Operands(Chain.Operands.size());
      if (F.isNode(Stripped)) {
        for (const Expr *Operand : operandsOf(cast<CallExpr>(Stripped)))
          Operands |= valueOf(Operand, S);
        return Operands;
      }
      if (const VarDecl *Var = referencedVar(Stripped)) {
        auto Known = S.find(Var);
        if (Known != S.end())
          return Known->second;
      }
      auto Parameter = Chain.Parameters.find(E);
      if (Parameter != Chain.Parameters.end() &&
          isTensorType(Chain.Operands[Parameter->second]->getType()))
        Operands.set(Parameter->second);
      return Operands;
    }

    void run(const Stmt *S, State &Now) const {
      if (const auto *Declaration = dyn_cast<DeclStmt>(S)) {
        const auto *Var = cast<VarDecl>(Declaration->getSingleDecl());
        if (!isTensorType(Var->getType()))
          return;
        auto Parameter = llvm::find(Chain.Locals, Var);
        if (Parameter != Chain.Locals.end()) {
          Set Own(Chain.Operands.size());
          Own.set(Parameter - Chain.Locals.begin());
          Now[Var] = Own;
        } else {
          Now[Var] = valueOf(Var->getInit(), Now);
        }
      } else if (const auto *Assign = assignmentOf(S)) {
        const VarDecl *Target = referencedVar(Assign->getArg(0));
        Set Value = valueOf(Assign->getArg(1), Now);
        if (Assign->getOperator() == OO_Equal)
          Now[Target] = Value;
        else
          Now[Target] |= Value;
      } else if (const auto *For = dyn_cast<ForStmt>(S)) {
        // The greatest state below the one before the loop (unless it runs
        // at least once) that one more trip keeps.
        State Must = Now;
        if (runsAtLeastOnce(For))
          Must = trip(For, Now);
        while (true) {
          State Next = trip(For, Must);
          bool Changed = false;
          for (auto &Entry : Must) {
            Set Kept = Entry.second;
            Kept &= Next.lookup(Entry.first);
            Changed |= Kept != Entry.second;
            Entry.second = Kept;
          }
          if (!Changed)
            break;
        }
        for (auto &Entry : Now)
          Entry.second = Must.lookup(Entry.first);
      }
    }

  private:
    State trip(const ForStmt *For, const State &From) const {
      State After = From;
      for (const Stmt *Child : statementsOf(For->getBody()))
        run(Child, After);
      State Kept; // the loop body's own locals end with the trip
      for (const auto &Entry : From)
        Kept[Entry.first] = After.lookup(Entry.first);
      return Kept;
    }

    const Fuser &F;
    const FusedChain &Chain;
  };

  /// The kernel of \p Root with the statements \p Region before it, or
  /// std::nullopt where one of the conditions of Note [Fused regions] fails.
  std::optional<FusedChain>
  build(const Expr *Root, ArrayRef<const Stmt *> Region, unsigned MinOps) {
    FusedChain Chain;
    Chain.Region.assign(Region.begin(), Region.end());
    for (const Stmt *S : Region) {
      if (Result.InRegions.count(S) || holdsKernel(S))
        return whyNot("line " + lineText(S) + " is in another kernel");
      declare(S, Chain);
    }
    // The kernel's value: the chain's root, or the vector a dot takes with
    // itself (Note [Dot products of a value with itself] in fuse_squares.cpp).
    const Expr *Computed = Root;
    if (const Expr *Dotted = selfDotOperand(Root, A))
      Computed = Chain.DotWithItself = Dotted;
    const VarDecl *RootVar = referencedVar(Computed);
    if (!isNode(Computed) && !(RootVar && Chain.Declared.count(RootVar) &&
                            isTensorType(RootVar->getType())))
      return whyNot(noElementForm(Computed));
    for (const Stmt *S : Region)
      if (!collectStatement(S, Chain, /*TopLevel=*/true))
        return Why.empty() ? whyNot("line " + lineText(S) +
                                    " cannot run inside a kernel")
                           : std::nullopt;
    if (!collect(Computed, Chain, /*Moved=*/false))
      return std::nullopt;
    unsigned Ops = countNodes(Computed);
    for (const Stmt *S : Region)
      Ops += countStatementOps(S);
    if (Ops < MinOps)
      return whyNot("one element-wise op is already one runtime pass");
    if (llvm::any_of(Chain.Operands,
                     [&](const Expr *Operand) { return holdsKernel(Operand); }))
      return whyNot("it reads the result of another kernel");
    // Its text is also its device program (Note [Fused kernels on a device] in
    // rules/include/vmap/fused.hpp) where it means the same there.
    Chain.DeviceCode = portableText(Computed, Chain) &&
                       llvm::all_of(Region, [&](const Stmt *S) {
                         return portableText(S, Chain);
                       });
    if (Region.empty())
      return Chain;
    if (!diesAtConsumer(Region, Root, Chain))
      return std::nullopt;
    if (!inPlaceWritesAreFresh(Region, Chain))
      return whyNot("a local written in place shares its elements with "
                    "another tensor");
    Reach Analysis(*this, Chain);
    Reach::State Now;
    for (const Stmt *S : Region)
      Analysis.run(S, Now);
    Reach::Set Reached = Analysis.valueOf(Computed, Now);
    Reached.resize(Chain.Operands.size());
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      if (isTensorType(Chain.Operands[I]->getType()) && !Reached.test(I))
        return whyNot("its value's shape depends on how many times a loop "
                      "runs");
    return Chain;
  }

  /// An operand that is a variable keeps its name (a region's local taken
  /// as a parameter, its own); the others get the first letters no variable
  /// of the kernel has (so `vb::at(x, b)` is never passed as a parameter
  /// `b`, nor stored into `b`).
  void name(FusedChain &Chain) {
    llvm::StringSet<> Taken, Read;
    for (const VarDecl *Var : Chain.Declared)
      Taken.insert(Var->getName());
    Chain.Names.assign(Chain.Operands.size(), "");
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      if (Chain.Locals[I])
        Chain.Names[I] = Chain.Locals[I]->getNameAsString();
    for (unsigned I = 0; I < Chain.Operands.size(); ++I)
      if (const VarDecl *Var = referencedVar(Chain.Operands[I]))
        if (!Chain.Locals[I] && Var->getName() != "vb" &&
            Taken.insert(Var->getName()).second)
          Chain.Names[I] = Var->getNameAsString();
    namesIn(Statement, Read);
    for (const Stmt *S : Chain.Region)
      namesIn(S, Read);
    for (const auto &Name : Read)
      Taken.insert(Name.getKey());
    unsigned Candidate = 0; // a, ..., z, then _b_0, _b_1, ...
    for (std::string &Name : Chain.Names) {
      while (Name.empty()) {
        std::string Next =
            Candidate < 26 ? std::string(1, static_cast<char>('a' + Candidate))
                           : "_b_" + std::to_string(Candidate - 26);
        ++Candidate;
        if (Taken.insert(Next).second)
          Name = Next;
      }
    }
  }

  /// Makes the chain under \p E a kernel when it has at least \p MinOps ops,
  /// with the longest region of the statements \p Before that it can take
  /// (Note [Fused regions]).
  void consider(const Expr *E, unsigned MinOps, ArrayRef<const Stmt *> Before) {
    const Expr *Root = stripImplicit(E);
    if (Result.Chains.count(Root) || inMacro(Root))
      return;
    std::size_t First = Before.size();
    while (First > 0 && mayBeInRegion(Before[First - 1]))
      --First;
    for (std::size_t Start = First; Start <= Before.size(); ++Start) {
      Why.clear();
      std::optional<FusedChain> Chain =
          build(Root, Before.drop_front(Start), MinOps);
      if (!Chain) {
        // The statement the region would have started at, else the
        // consumer itself, is not compiled for this reason.
        notCompiled(Start < Before.size() ? Before[Start] : Consumer);
        continue;
      }
      commit(Root, std::move(*Chain));
      return;
    }
  }

  /// Records why the kernel just tried failed as why \p S is not compiled,
  /// unless a reason is recorded already.
  void notCompiled(const Stmt *S) {
    if (!Why.empty())
      Result.NotCompiled.try_emplace(S, Why);
  }

  /// Makes \p Chain the kernel of \p Root.
  void commit(const Expr *Root, FusedChain Chain) {
    name(Chain);
    for (const Stmt *S : Chain.Region)
      Result.InRegions.insert(S);
    if (!Chain.Region.empty())
      Result.RegionStarts[Consumer] = Chain.Region.front();
    Result.Chains[Root] = std::move(Chain);
  }

  /// Makes the store of \p E into \p Destination a scalar kernel with the
  /// longest region of the statements \p Before that it can take (Note
  /// [Fused control flow] in fuse_scalar.cpp).
  void considerScalar(const Expr *E, const Expr *Destination,
                      ArrayRef<const Stmt *> Before) {
    const Expr *Root = stripImplicit(E);
    if (Result.Chains.count(Root) || inMacro(Root))
      return;
    Why.clear();
    if (std::optional<FusedChain> Chain =
            Scalars.longest(E, Destination, Before))
      return commit(Root, std::move(*Chain));
    if (Why.empty()) {
      std::string Outside = elementIndexOutside(Root);
      whyNot(Outside.empty()
                 ? "a store of a C++ scalar is compiled only with statements "
                   "that make a kernel: per-example control flow, element "
                   "reads, or two batched ops or more, whose values are not "
                   "used after the store"
                 : Outside);
    }
    notCompiled(Consumer);
  }

  /// Why the element \p Root reads (`input[i][index[i][k].item<int64_t>()]`)
  /// is read outside a kernel where no region computes its index: the index
  /// reads the counter of a plain loop of the body (a kernel holds whole
  /// statements, not the loop around them), or empty.
  std::string elementIndexOutside(const Expr *Root) const {
    const CXXOperatorCallExpr *Subscript = elementSubscript(Root);
    if (!Subscript)
      return "";
    llvm::DenseSet<const VarDecl *> Read;
    std::function<void(const Stmt *)> Reads = [&](const Stmt *S) {
      if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
          Read.insert(Var);
      for (const Stmt *Child : S->children())
        if (Child)
          Reads(Child);
    };
    Reads(Subscript->getArg(1));
    // The plain loop of the body whose counter the index reads.
    std::function<const ForStmt *(const Stmt *)> CounterLoop =
        [&](const Stmt *S) -> const ForStmt * {
      if (const auto *For = dyn_cast<ForStmt>(S);
          For && !A.levelOf(For) && For->getInit())
        if (const auto *Init = dyn_cast<DeclStmt>(For->getInit()))
          for (const Decl *D : Init->decls())
            if (Read.count(dyn_cast<VarDecl>(D)))
              return For;
      for (const Stmt *Child : S->children())
        if (const ForStmt *For = Child ? CounterLoop(Child) : nullptr)
          return For;
      return nullptr;
    };
    const ForStmt *Loop = CounterLoop(Body);
    if (!Loop)
      return "";
    return "reads '" +
           sourceText(Context, Subscript->getArg(0)->getSourceRange()).str() +
           "' at an index computed in the plain loop at line " + lineText(Loop);
  }

  //===-- slot runs (Note [Slot runs]) ------------------------------------===//

  /// The leaves of \p E, a value a slot run stores, added to \p Chain;
  /// \p AfterStore: read as written after a store of the run.
  bool collectSlotValue(const Expr *E, FusedChain &Chain, const VarDecl *Tensor,
                        bool AfterStore) {
    const Expr *Stripped = stripImplicit(E);
    if (isNode(Stripped))
      return llvm::all_of(
          operandsOf(cast<CallExpr>(Stripped)), [&](const Expr *Operand) {
            return collectSlotValue(Operand, Chain, Tensor, AfterStore);
          });
    if (Slots.sameSlot(Stripped, Chain.Slot)) {
      Chain.Parameters[E] = 0;
      return true;
    }
    std::string Text = sourceText(Context, Stripped->getSourceRange()).str();
    llvm::DenseMap<const VarDecl *, unsigned> Refs;
    countAllRefs(Stripped, Refs);
    if (Refs.count(Tensor)) {
      whyNot("'" + Text + "' reads '" + Tensor->getNameAsString() +
             "' other than as the slot the statements update");
      return false;
    }
    if (AfterStore && !isLiteral(Stripped) && !Slots.isPlainRead(Stripped) &&
        !(referencedVar(Stripped) &&
          Chain.Declared.count(referencedVar(Stripped)))) {
      whyNot("'" + Text +
             "' would be computed before the kernel, ahead of the stores "
             "before it");
      return false;
    }
    return collect(E, Chain, /*Moved=*/true);
  }

  /// The leaves of \p S, a statement of a slot run, added to \p Chain.
  bool collectUpdate(const Stmt *S, FusedChain &Chain, const VarDecl *Tensor,
                     bool AfterStore) {
    if (const auto *For = dyn_cast<ForStmt>(S)) {
      for (const Decl *D : cast<DeclStmt>(For->getInit())->decls())
        if (!collectHeader(cast<VarDecl>(D)->getInit(), Chain))
          return false;
      return collectHeader(For->getCond(), Chain) &&
             collectHeader(For->getInc(), Chain) &&
             llvm::all_of(statementsOf(For->getBody()), [&](const Stmt *Child) {
               return collectUpdate(Child, Chain, Tensor, /*AfterStore=*/true);
             });
    }
    const auto *Assign = assignmentOf(S);
    Chain.Parameters[Assign->getArg(0)] = 0;
    return collectSlotValue(Assign->getArg(1), Chain, Tensor, AfterStore);
  }

  /// The runtime passes of \p S, a statement of a slot run as written: a
  /// store is one (a copy, or its op's into the slot), a compound assignment
  /// one more than its value's, a loop's counted twice (it repeats them).
  unsigned slotPasses(const Stmt *S) const {
    if (const auto *Assign = assignmentOf(S)) {
      unsigned Nodes = countNodes(Assign->getArg(1));
      return Assign->getOperator() == OO_Equal ? std::max(Nodes, 1u)
                                               : Nodes + 1;
    }
    unsigned Count = 0;
    for (const Stmt *Child : statementsOf(cast<ForStmt>(S)->getBody()))
      Count += 2 * slotPasses(Child);
    return Count;
  }

  /// The kernel of the slot run \p Run updating \p Slot, or std::nullopt.
  std::optional<FusedChain> buildSlot(const Expr *Slot,
                                      ArrayRef<const Stmt *> Run) {
    FusedChain Chain;
    Chain.Slot = Slot;
    Chain.Region.assign(Run.begin(), Run.end());
    unsigned Passes = 0;
    for (const Stmt *S : Run) {
      if (Result.InRegions.count(S) || holdsKernel(S))
        return whyNot("line " + lineText(S) + " is in another kernel");
      declare(S, Chain);
      Passes += slotPasses(S);
    }
    // Stores alone (`out[i][1] = 5; out[i][1] = 6;`), the last wins: no
    // update to keep in registers.
    if (Passes < 2 || (Run.size() == 1 && !isa<ForStmt>(Run.front())) ||
        !llvm::any_of(Run,
                      [&](const Stmt *S) { return Slots.readsSlot(S, Slot); }))
      return std::nullopt;
    Chain.Operands.push_back(Slot);
    Chain.Locals.push_back(nullptr);
    Chain.ElementReads.push_back(false);
    Chain.ElementWrites.push_back(false);
    const VarDecl *Tensor = Slots.ownSlotOf(Slot);
    for (std::size_t I = 0; I < Run.size(); ++I)
      if (!collectUpdate(Run[I], Chain, Tensor,
                         /*AfterStore=*/I > 0 || isa<ForStmt>(Run[I])))
        return Why.empty() ? whyNot("line " + lineText(Run[I]) +
                                    " cannot run inside a kernel")
                           : std::nullopt;
    if (llvm::any_of(Chain.Operands,
                     [&](const Expr *Operand) { return holdsKernel(Operand); }))
      return whyNot("it reads the result of another kernel");
    return Chain;
  }

  /// Makes the longest slot run at the front of \p Rest (the statements of a
  /// block from one on) a kernel (Note [Slot runs]); the number of statements
  /// it takes, or 0.
  std::size_t slotRun(ArrayRef<const Stmt *> Rest) {
    const Expr *Slot = Slots.slotUpdate(Rest.front(), nullptr);
    if (!Slot)
      return 0;
    std::size_t End = 1;
    while (End < Rest.size() && Slots.slotUpdate(Rest[End], Slot))
      ++End;
    for (; End > 0; --End) {
      Why.clear();
      std::optional<FusedChain> Chain = buildSlot(Slot, Rest.take_front(End));
      if (!Chain) {
        notCompiled(Rest.front());
        continue;
      }
      const Stmt *Last = Rest[End - 1];
      Statement = nullptr;
      name(*Chain);
      for (const Stmt *Inside : Chain->Region)
        Result.InRegions.insert(Inside);
      if (End > 1)
        Result.RegionStarts[Last] = Rest.front();
      Result.StatementKernels[Last] = std::move(*Chain);
      return End;
    }
    return 0;
  }

  /// Makes \p S, a statement that stores elements, with the longest region
  /// of the statements \p Before that it can take, a scalar kernel that
  /// returns nothing (Note [Fused control flow] in fuse_scalar.cpp).
  bool considerStores(const Stmt *S, ArrayRef<const Stmt *> Before) {
    if (inMacro(S))
      return false;
    std::optional<FusedChain> Chain = Scalars.storing(S, Before);
    if (!Chain)
      return false;
    Statement = nullptr;
    name(*Chain);
    for (const Stmt *Inside : Chain->Region)
      Result.InRegions.insert(Inside);
    if (Chain->Region.size() > 1)
      Result.RegionStarts[S] = Chain->Region.front();
    Result.StatementKernels[S] = std::move(*Chain);
    return true;
  }

  /// Reductions of a whole example, or of a sum or mean over one dim given by
  /// literals, inside \p S, innermost first.
  void reductions(const Stmt *S, ArrayRef<const Stmt *> Before) {
    if (!S || isa<LambdaExpr>(S))
      return;
    for (const Stmt *Child : S->children())
      reductions(Child, Before);
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call || !A.isBatched(Call))
      return;
    llvm::SmallVector<const Expr *, 4> Operands = operandsOf(Call);
    if (isTwoNorm(Call, Operands, Context))
      return consider(Operands.front(), 1, Before);
    if (selfDotOperand(Call, A))
      return consider(Call, 1, Before);
    std::size_t Op = opOf(Call);
    if (Op == rules::kNoOp ||
        rules::kOpTable[Op].family != rules::Family::reduce)
      return;
    const rules::OpEntry &Entry = rules::kOpTable[Op];
    // vb::Fused's sum(dim, keepdim) and mean(dim, keepdim)
    // (rules/include/vmap/fused.hpp).
    const bool OverOneDim =
        Entry.rule == rules::RuleId::reduce_dim &&
        (Entry.name == "sum" || Entry.name == "mean") &&
        llvm::all_of(ArrayRef(Operands).drop_front(), isLiteral);
    if ((Entry.rule == rules::RuleId::reduce_all && Operands.size() == 1) ||
        OverOneDim)
      consider(Operands.front(), 1, Before);
  }

  /// An expression of the body's statement Consumer; \p Before are the
  /// statements before that one in its block.
  void statement(const Stmt *S, ArrayRef<const Stmt *> Before) {
    const auto *E = dyn_cast<Expr>(S);
    if (!E)
      return;
    Statement = E;
    reductions(E, Before);
    auto Reduction = A.Reductions.find(E);
    if (Reduction != A.Reductions.end()) {
      const clang_vmap::Reduction &R = Reduction->second;
      if ((R.Op == ReduceOp::Add || R.Op == ReduceOp::Sub) &&
          isTensorType(R.Accumulator->getType()))
        consider(R.Value, 1, Before);
      // `total += x[i].item<float>() * y[j].item<float>()`: the value a
      // scalar kernel, its sum into a C++ number taken in it.
      else if (isScalarType(stripImplicit(R.Value)->getType()))
        considerScalar(R.Value, R.Accumulator, Before);
      return;
    }
    const auto *Assign = dyn_cast<CXXOperatorCallExpr>(stripImplicit(E));
    if (!Assign || Assign->getOperator() != OO_Equal ||
        Assign->getNumArgs() != 2 ||
        !isTensorType(Assign->getArg(0)->getType()) ||
        referencedVar(Assign->getArg(0)) || !A.isBatched(Assign->getArg(0)))
      return;
    // `out[i][j] = input[i][k]`: an element at an index a region computes
    // (Note [Element reads] in rules/include/vmap/fused_scalar.hpp).
    const bool Scalar =
        isScalarType(stripImplicit(Assign->getArg(1))->getType());
    if (Scalar || elementSubscript(Assign->getArg(1)))
      considerScalar(Assign->getArg(1), Assign->getArg(0), Before);
    if (!Scalar)
      consider(Assign->getArg(1), 2, Before);
  }

  void scan(const Stmt *S, ArrayRef<const Stmt *> Before) {
    if (!S)
      return;
    if (const auto *Compound = dyn_cast<CompoundStmt>(S)) {
      llvm::SmallVector<const Stmt *, 16> Statements(Compound->body());
      for (std::size_t I = 0; I < Statements.size(); ++I) {
        if (std::size_t Run = slotRun(ArrayRef(Statements).drop_front(I))) {
          I += Run - 1;
          continue;
        }
        scan(Statements[I], ArrayRef(Statements).take_front(I));
      }
      return;
    }
    Consumer = S;
    if (considerStores(S, Before))
      return;
    if (isa<Expr>(S))
      return statement(S, Before);
    if (isa<DeclStmt>(S)) { // `Tensor s = (d * d).sum();`: its initialisers
      for (const Stmt *Init : S->children())
        statement(Init, Before);
      return;
    }
    // A clone's `return d.dot(d).sqrt();`: its value, with the statements
    // before it.
    if (const auto *Return = dyn_cast<ReturnStmt>(S))
      return statement(Return->getRetValue(), Before);
    for (const Stmt *Child : S->children())
      scan(Child, {});
  }

  const BatchPlan &Plan;
  mutable llvm::DenseMap<const CallExpr *, std::optional<unsigned>> Helpers;
  const Stmt *Consumer = nullptr;  ///< the statement being looked at
  const Expr *Statement = nullptr; ///< its expression being looked at
  ScalarKernels Scalars{*this};
  SlotRuns Slots{*this};
};

} // namespace

void fuse(BatchPlan &Plan) {
  Plan.Fusion = Fuser(Plan).run();
  settleClones(Plan);
  for (const std::unique_ptr<BatchPlan> &Clone : Plan.Clones)
    fuse(*Clone);
}

} // namespace clang_vmap
