//===- analyse_alias.cpp - Every tensor the loop reaches, proven or guarded -===//
//
// The overlap proof of the analysis (Note [Every tensor the loop reaches]):
// what a view or handle copy is made from, what same-file callees reach, which
// pairs are disjoint, which overlap (refused at the line) and which the
// run-time guard checks.
//
//===----------------------------------------------------------------------===//

#include "analyse_detail.h"
#include "ast_util.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>
#include <functional>

using namespace clang;

namespace clang_vmap {
namespace detail {
namespace {

/// One tensor the loop reaches (Note [Every tensor the loop reaches]).
struct Reached {
  std::string Name;               ///< as the guard names it before the loop
  const VarDecl *Var = nullptr;   ///< null for a data member
  const NamedDecl *Decl = nullptr; ///< for remarks
  const Expr *Site = nullptr;     ///< a read or write of it in the loop
  bool Written = false;           ///< an output or accumulator
  bool Container = false;         ///< of tensors, read whole
};

const InitListExpr *findInitList(const Stmt *S) {
  if (!S)
    return nullptr;
  if (const auto *List = dyn_cast<InitListExpr>(S))
    return List;
  for (const Stmt *Child : S->children())
    if (const InitListExpr *List = findInitList(Child))
      return List;
  return nullptr;
}

/// `from_blob(buf + 1, {3, 3})`: the bytes of the array or pointer variable
/// `buf` a tensor covers. End is exact for the default dtype (float32), else a
/// lower bound (an element is at least a byte).
struct BlobRegion {
  const VarDecl *Buffer = nullptr;
  int64_t Begin = 0, End = 0;
  bool Exact = false;
};

std::optional<BlobRegion> blobOf(const VarDecl *Var, const Stmt *Body,
                                 const ASTContext &Context) {
  const auto *Call = Var->getInit() && !isa<ParmVarDecl>(Var)
                         ? dyn_cast<CallExpr>(stripImplicit(Var->getInit()))
                         : nullptr;
  if (!Call || !Call->getDirectCallee() ||
      !isInVmapNamespace(Call->getDirectCallee()) ||
      calleeName(Call) != "from_blob" || Call->getNumArgs() < 2)
    return std::nullopt;
  auto Constant = [&](const Expr *E) -> std::optional<int64_t> {
    Expr::EvalResult Value;
    if (!E->EvaluateAsInt(Value, Context))
      return std::nullopt;
    return Value.Val.getInt().getExtValue();
  };
  const Expr *Pointer = Call->getArg(0)->IgnoreParenImpCasts();
  std::optional<int64_t> Offset = 0;
  if (const auto *Add = dyn_cast<BinaryOperator>(Pointer);
      Add && Add->getOpcode() == BO_Add) {
    Offset = Constant(Add->getRHS());
    Pointer = Add->getLHS()->IgnoreParenImpCasts();
  } else if (const auto *Address = dyn_cast<UnaryOperator>(Pointer);
             Address && Address->getOpcode() == UO_AddrOf) {
    const auto *Element =
        dyn_cast<ArraySubscriptExpr>(Address->getSubExpr()->IgnoreParens());
    if (!Element)
      return std::nullopt;
    Offset = Constant(Element->getIdx());
    Pointer = Element->getBase()->IgnoreParenImpCasts();
  }
  QualType Type = Pointer->getType();
  if (const auto *Data = dyn_cast<CXXMemberCallExpr>(Pointer);
      Data && calleeName(Data) == "data" && Data->getNumArgs() == 0)
    Pointer = Data->getImplicitObjectArgument()->IgnoreParenImpCasts();
  const VarDecl *Buffer = referencedVar(Pointer);
  QualType ElementType = Type->isPointerType() ? Type->getPointeeType()
                         : Type->isArrayType()
                             ? QualType(Type->getArrayElementTypeNoTypeQual(), 0)
                             : QualType();
  const InitListExpr *Sizes = findInitList(Call->getArg(1));
  if (!Offset || !Buffer || ElementType.isNull() ||
      ElementType->isIncompleteType() || !Sizes || isAssignedIn(Body, Buffer))
    return std::nullopt;
  int64_t Numel = 1;
  for (const Expr *Size : Sizes->inits()) {
    std::optional<int64_t> N = Constant(Size);
    if (!N || *N < 0)
      return std::nullopt;
    Numel *= *N;
  }
  bool DefaultDtype = Call->getNumArgs() < 3 ||
                      isa<CXXDefaultArgExpr>(Call->getArg(2));
  BlobRegion Region;
  Region.Buffer = Buffer;
  Region.Begin =
      *Offset * Context.getTypeSizeInChars(ElementType).getQuantity();
  Region.End = Region.Begin + Numel * (DefaultDtype ? 4 : 1);
  Region.Exact = DefaultDtype;
  return Region;
}

/// How the loop names the object an expression of a callee denotes: `this`,
/// `layer`, `config.model` (Pointer: the expression is a pointer to it, so a
/// member is reached through `->`); std::nullopt where it cannot.
struct ObjectName {
  std::string Name;
  bool Pointer = false;
};
using NameInCaller =
    llvm::function_ref<std::optional<ObjectName>(const Expr *)>;

/// What a function this file defines reaches besides its tensor arguments
/// (which the caller reads itself), and the functions it calls in turn
/// (with \p Scalars, the C++ scalars instead of the tensors):
/// globals and static members by their qualified names, members of the object
/// it is called on and of objects passed to it, each by the name the loop's
/// function gives it before the loop (\p Caller names the call's own
/// arguments). A tensor it reaches that the loop cannot name (a static local,
/// a member of an object it makes itself) goes to \p Unnamed (Note [Every
/// tensor the loop reaches]).
void forEachTensorThroughCall(
    const CallExpr *Call, NameInCaller Caller, const ASTContext &Context,
    llvm::SmallPtrSetImpl<const FunctionDecl *> &Seen,
    llvm::function_ref<void(std::string, const ValueDecl *, bool)> Visit,
    llvm::function_ref<void(std::string, bool StaticLocal)> Unnamed,
    bool Scalars = false) {
  // A scalar the loop cannot name is no accumulator of the loop's either.
  auto Wanted = [&](QualType Type) {
    return Scalars ? isScalarType(Type)
                   : isTensorType(Type) || holdsTensors(Type);
  };
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = nullptr;
  if (!Callee || isInVmapNamespace(Callee) || !Callee->hasBody(Definition) ||
      Context.getSourceManager().isInSystemHeader(Definition->getLocation()) ||
      !Seen.insert(Definition).second)
    return;
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressUnwrittenScope = true;
  // The object a method is called on and the call's arguments, as the caller
  // names them; an operator method's object is its first argument.
  std::optional<ObjectName> Object;
  llvm::ArrayRef<const Expr *> Args(Call->getArgs(), Call->getNumArgs());
  if (const auto *Method = dyn_cast<CXXMemberCallExpr>(Call))
    Object = Caller(Method->getImplicitObjectArgument());
  else if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) &&
           !Args.empty()) {
    Object = Caller(Args.front());
    Args = Args.drop_front();
  }
  auto Global = [&](const VarDecl *Var) {
    std::string Name;
    llvm::raw_string_ostream OS(Name);
    OS << "::";
    Var->printQualifiedName(OS, Policy);
    return Name;
  };
  // `this->cfg.scale` in the callee: `layer.cfg.scale` in the loop; `h.buf_`
  // of a parameter `h`: the argument's member.
  std::function<std::optional<ObjectName>(const Expr *)> NameOf =
      [&](const Expr *E) -> std::optional<ObjectName> {
    E = E->IgnoreParenImpCasts();
    if (isa<CXXThisExpr>(E))
      return Object;
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && (Unary->getOpcode() == UO_AddrOf ||
                  Unary->getOpcode() == UO_Deref)) {
      std::optional<ObjectName> Of = NameOf(Unary->getSubExpr());
      if (!Of)
        return std::nullopt;
      bool Address = Unary->getOpcode() == UO_AddrOf;
      return ObjectName{std::string(Address ? "(&" : "(*") + Of->Name + ")",
                        Address};
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(Var);
          Param && Param->getDeclContext() == Definition &&
          Param->getFunctionScopeIndex() < Args.size())
        return Caller(Args[Param->getFunctionScopeIndex()]);
      if (Var && Var->hasGlobalStorage() && !Var->isStaticLocal())
        return ObjectName{Global(Var), Var->getType()->isPointerType()};
      return std::nullopt;
    }
    const auto *Member = dyn_cast<MemberExpr>(E);
    if (!Member || !isa<FieldDecl>(Member->getMemberDecl()))
      return std::nullopt;
    std::optional<ObjectName> Base = NameOf(Member->getBase());
    if (!Base)
      return std::nullopt;
    // `this->w` of a method called on an object (`m.apply(...)`): `m.w`.
    return ObjectName{Base->Name + (Member->isArrow() && Base->Pointer ? "->" : ".") +
                          Member->getMemberDecl()->getNameAsString(),
                      Member->getType()->isPointerType()};
  };
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasGlobalStorage() && Wanted(Var->getType())) {
        if (!Var->isStaticLocal())
          Visit(Global(Var), Var, holdsTensors(Var->getType()));
        else if (!Scalars)
          Unnamed(Var->getNameAsString(), true);
      }
    if (const auto *Member = dyn_cast<MemberExpr>(S)) {
      QualType Type = Member->getMemberDecl()->getType();
      if (Wanted(Type)) {
        if (std::optional<ObjectName> Name = NameOf(Member))
          Visit(Name->Name, Member->getMemberDecl(), holdsTensors(Type));
        else if (!Scalars)
          Unnamed(sourceText(Context, Member->getSourceRange()).str(), false);
      }
    }
    // `*p`, `p->sum()` of a pointer to tensors: `(*p)` as the loop names p.
    const Expr *Pointer = nullptr;
    if (const auto *Unary = dyn_cast<UnaryOperator>(S);
        Unary && Unary->getOpcode() == UO_Deref)
      Pointer = Unary->getSubExpr();
    else if (const auto *Member = dyn_cast<MemberExpr>(S);
             Member && Member->isArrow())
      Pointer = Member->getBase();
    else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(S))
      Pointer = Subscript->getBase();
    if (!Scalars && Pointer &&
        pointsToTensors(Pointer->IgnoreParenImpCasts()->getType())) {
      std::optional<ObjectName> Name = NameOf(Pointer);
      if (Name && !isa<ArraySubscriptExpr>(S))
        Visit("(*" + Name->Name + ")",
              dyn_cast_or_null<ValueDecl>(declOf(Pointer)),
              holdsTensors(Pointer->IgnoreParenImpCasts()
                               ->getType()
                               ->getPointeeType()));
      else
        Unnamed(sourceText(Context, S->getSourceRange()).str(), false);
    }
    if (const auto *Inner = dyn_cast<CallExpr>(S))
      forEachTensorThroughCall(Inner, NameOf, Context, Seen, Visit, Unnamed,
                               Scalars);
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Definition->getBody());
  // Seen holds the calls being walked (a recursion ends there); called again
  // elsewhere, with other arguments, the function reaches other members.
  Seen.erase(Definition);
}

} // namespace

Access Analyser::rootOf(const VarDecl *Var) const {
  const FunctionDecl *Function = Loops[Top].Function;
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  Access Root;
  Root.Base = Var;
  // Bounded: a declaration's initialiser names only earlier variables.
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    const VarDecl *Base = Root.Base;
    if (!Base->isLocalVarDecl() || Base->isStaticLocal() || Locals.count(Base) ||
        !Base->getInit() || isAssignedIn(Body, Base) ||
        !(isTensorType(Base->getType()) || isBoundReference(Base)))
      return Root;
    std::optional<Access> Init = accessOf(Base->getInit());
    if (!Init)
      return Root;
    Init->Steps.append(Root.Steps.begin(), Root.Steps.end());
    Root = std::move(*Init);
  }
  return Root;
}

bool Analyser::checkAliasing() {
  if (Result.Callee)
    return true; // the caller's loop checks what it passes in
  const FunctionDecl *Function = Loops[Top].Function;
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  // Memoised: a loop reads many tensors, each a walk over the whole body.
  llvm::DenseMap<const VarDecl *, bool> FreshVars;
  auto Fresh = [&](const VarDecl *Var) {
    auto [It, Inserted] = FreshVars.try_emplace(Var, false);
    if (Inserted)
      It->second = isFreshTensor(Var) && !isAssignedIn(Body, Var);
    return It->second;
  };

  std::vector<Reached> All;
  auto Find = [&](const Reached &R) {
    return llvm::find_if(All, [&](const Reached &Other) {
      return Other.Name == R.Name ||
             (isa_and_nonnull<VarDecl>(R.Decl) && Other.Decl == R.Decl);
    });
  };
  auto Add = [&](Reached R) {
    auto Known = Find(R);
    if (Known == All.end())
      return All.push_back(std::move(R));
    if (R.Written && !Known->Written) {
      Known->Written = true;
      Known->Site = R.Site;
    }
  };
  // A static member or a namespace's variable by its qualified name, which
  // the loop's function may have written with a qualifier (`Table::weights`).
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressUnwrittenScope = true;
  auto OfVar = [&](const VarDecl *Var, const Expr *Site, bool Written) {
    std::string Name = Var->getNameAsString();
    if (Var->isStaticDataMember() ||
        (Var->hasGlobalStorage() && !Var->isStaticLocal() &&
         !Var->getDeclContext()->getRedeclContext()->isTranslationUnit())) {
      Name = "::";
      llvm::raw_string_ostream OS(Name);
      Var->printQualifiedName(OS, Policy);
    }
    return Reached{Name, Var, Var, Site, Written, false};
  };
  for (const WriteEvent &W : Writes)
    if (writesElements(W) && !Locals.count(W.Resolved.Base) &&
        isTensorType(W.Resolved.Base->getType()))
      Add(OfVar(W.Resolved.Base, W.Site, true));
  // `acc += e` writes acc's elements; `acc = maximum(acc, e)` makes a new
  // tensor (Reduction::Rebinds) and only reads.
  for (const ReductionSite &R : ReductionSites)
    if (!Locals.count(R.Accumulator) &&
        isTensorType(R.Accumulator->getType()))
      Add(OfVar(R.Accumulator, R.Site, !Result.Reductions[R.Site].Rebinds));
  for (const ReadEvent &R : Reads)
    if (!Locals.count(R.Resolved.Base) &&
        isTensorType(R.Resolved.Base->getType()))
      Add(OfVar(R.Resolved.Base, R.Read.Site, false));
  for (const VarDecl *Container : TensorContainers)
    if (!Locals.count(Container)) {
      Reached R = OfVar(Container, nullptr, false);
      R.Container = true;
      Add(R);
    }
  for (const ReachedMember &M : ReachedMembers)
    Add({M.Name, nullptr, M.Decl, M.Site, false, M.Container});
  // What this file's functions called in the loop reach besides their
  // arguments (which the loop's own reads and writes already are).
  bool Ok = true;
  std::function<std::optional<ObjectName>(const Expr *)> NameInLoop =
      [&](const Expr *E) -> std::optional<ObjectName> {
    E = E->IgnoreParenImpCasts();
    // `f(&layer)`: the callee's `p->W_` is `(&layer)->W_`.
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && (Unary->getOpcode() == UO_AddrOf ||
                  Unary->getOpcode() == UO_Deref)) {
      std::optional<ObjectName> Of = NameInLoop(Unary->getSubExpr());
      if (!Of)
        return std::nullopt;
      bool Address = Unary->getOpcode() == UO_AddrOf;
      return ObjectName{std::string(Address ? "(&" : "(*") + Of->Name + ")",
                        Address};
    }
    if (std::optional<std::string> Name = nameBeforeLoop(E))
      return ObjectName{*Name, E->getType()->isPointerType()};
    return std::nullopt;
  };
  const SourceManager &SM = Context.getSourceManager();
  for (const auto &[Call, Where] : Calls) {
    // A tensor the same for every example that a function whose body the
    // tool cannot read returns (`params.at("w")`, `std::get<0>(pair)`) may
    // be any tensor. A container's elements are checked whole instead, and
    // `std::move(t)` is t, which the loop reads itself.
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Definition = nullptr;
    QualType Returned = Call->getType().getNonReferenceType();
    const auto *Method = dyn_cast<CXXMemberCallExpr>(Call);
    const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
    const Expr *Object = Method     ? Method->getImplicitObjectArgument()
                         : Operator && Operator->getNumArgs() > 0
                             ? Operator->getArg(0)
                             : nullptr;
    if (Callee && !isInVmapNamespace(Callee) &&
        (!Callee->hasBody(Definition) ||
         SM.isInSystemHeader(Definition->getLocation())) &&
        (isTensorType(Returned) || holdsTensors(Returned) ||
         isTensorTupleType(Returned) || pointsToTensors(Returned)) &&
        !levels(Call) &&
        !(Object && holdsTensors(Object->getType()) && declOf(Object)) &&
        !(Callee->isInStdNamespace() &&
          llvm::is_contained({"move", "forward", "as_const"},
                             calleeName(Call)))) {
      Ok &= refuseAt(diag::refuse_tensor_not_checkable, Call->getSourceRange(),
                     diag::note_tensor_not_checkable,
                     {"'" + text(Call) + "'"});
      continue;
    }
    llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
    forEachTensorThroughCall(
        Call, NameInLoop,
        Context, Seen,
        [&](std::string Name, const ValueDecl *Decl, bool Container) {
          Reached R{std::move(Name), nullptr, Decl, Call, false, Container};
          // A callee writes only its own locals, so it reads what it
          // reaches; reading what the loop writes or reduces into, each
          // example would see the writes of the examples before it.
          auto Known = Find(R);
          bool Accumulator =
              Known != All.end() && Known->Var &&
              llvm::any_of(ReductionSites, [&](const ReductionSite &Site) {
                return Site.Accumulator == Known->Var;
              });
          if (Known != All.end() && (Known->Written || Accumulator)) {
            Ok &= refuseAt(diag::refuse_callee_reads_output,
                           Call->getSourceRange(), diag::note_callee_reads_output,
                           {"'" + Call->getDirectCallee()->getNameAsString() +
                                "'",
                            "'" + Known->Name + "'",
                            Accumulator ? "reduces into" : "writes"});
            return;
          }
          Add(std::move(R));
        },
        [&](std::string What, bool StaticLocal) {
          Ok &= refuseAt(diag::refuse_callee_tensor_not_checkable,
                         Call->getSourceRange(),
                         diag::note_callee_tensor_not_checkable,
                         {"'" + Call->getDirectCallee()->getNameAsString() +
                              "'",
                          "'" + What + "'",
                          StaticLocal ? "a static local variable"
                                      : "a member of an object it does not "
                                        "receive from the loop's function"});
        });
  }

  auto Guard = [&](const Reached &Written, const Reached &Other,
                   OverlapCheck::Kind Kind) {
    Result.OverlapChecks.push_back(
        {Written.Name, Other.Name, Written.Decl->getLocation(),
         Other.Decl ? Other.Decl->getLocation() : SourceLocation(), Kind});
  };
  // Bound to the same view, a written and a read tensor are one: safe only
  // when the loop reads each example's own slot of it, as checkReads asks of
  // one variable.
  auto SameViewSafe = [&](const VarDecl *Written, const VarDecl *Read) {
    // An accumulator is read whole by every example, whether updated in
    // place or rebound (`best = maximum(best, x[i])` reads all of best).
    bool Safe = llvm::none_of(ReductionSites, [&](const ReductionSite &R) {
      return R.Accumulator == Written || R.Accumulator == Read;
    });
    for (const ReadEvent &R : Reads)
      for (const WriteEvent &W : Writes)
        if (R.Resolved.Base == Read && W.Resolved.Base == Written &&
            writesElements(W))
          Safe &= readsOwnSlot(R, W, depthOf(Read));
    return Safe;
  };
  auto Constant = [&](const Expr *E) -> std::optional<int64_t> {
    Expr::EvalResult Value;
    if (!E || !E->EvaluateAsInt(Value, Context))
      return std::nullopt;
    return Value.Val.getInt().getExtValue();
  };
  enum class Proof { Unknown, Disjoint, SameView, Overlap };
  // Two views of one variable: where their paths first part.
  auto Compare = [&](const Access &A, const Access &B) {
    std::size_t P = 0;
    while (P < A.Steps.size() && P < B.Steps.size() &&
           sameStep(A.Steps[P], B.Steps[P]))
      ++P;
    if (P == A.Steps.size() && P == B.Steps.size())
      return Proof::SameView;
    if (P == A.Steps.size() || P == B.Steps.size())
      return Proof::Overlap; // one is a view into the other
    const Step &SA = A.Steps[P], &SB = B.Steps[P];
    std::optional<int64_t> StartA = Constant(SA.Index),
                           StartB = Constant(SB.Index);
    if (SA.Key != SB.Key || !StartA || !StartB)
      return Proof::Unknown;
    if (!SA.Window)
      return Proof::Disjoint; // two slots of one dim
    std::optional<int64_t> LengthA = Constant(SA.Length),
                           LengthB = Constant(SB.Length);
    if (!LengthA || !LengthB)
      return Proof::Unknown;
    if (*StartA + *LengthA <= *StartB || *StartB + *LengthB <= *StartA)
      return Proof::Disjoint;
    // Overlapping windows; what further steps take of them may not.
    return P + 1 == A.Steps.size() && P + 1 == B.Steps.size()
               ? Proof::Overlap
               : Proof::Unknown;
  };
  auto Prove = [&](const VarDecl *A, const VarDecl *B) {
    Access RootA = rootOf(A), RootB = rootOf(B);
    if (RootA.Base == RootB.Base)
      return std::pair(Compare(RootA, RootB), RootA.Base);
    if (RootA.Steps.empty() && RootB.Steps.empty()) {
      std::optional<BlobRegion> BlobA = blobOf(RootA.Base, Body, Context),
                                BlobB = blobOf(RootB.Base, Body, Context);
      if (BlobA && BlobB && BlobA->Buffer == BlobB->Buffer) {
        if (BlobA->Begin == BlobB->Begin && BlobA->End == BlobB->End &&
            BlobA->Exact && BlobB->Exact)
          return std::pair(Proof::SameView, BlobA->Buffer);
        if (BlobA->Begin < BlobB->End && BlobB->Begin < BlobA->End)
          return std::pair(Proof::Overlap, BlobA->Buffer);
        if (BlobA->Exact && BlobB->Exact)
          return std::pair(Proof::Disjoint, BlobA->Buffer);
        return std::pair(Proof::Unknown, BlobA->Buffer);
      }
    }
    // A fresh tensor shares elements with nothing the function had before,
    // nor with what a variable never assigned was made from.
    if ((Fresh(RootA.Base) && !isAssignedIn(Body, RootB.Base)) ||
        (Fresh(RootB.Base) && !isAssignedIn(Body, RootA.Base)))
      return std::pair(Proof::Disjoint, RootA.Base);
    return std::pair(Proof::Unknown, RootA.Base);
  };

  for (std::size_t I = 0; I < All.size(); ++I) {
    const Reached &Written = All[I];
    if (!Written.Written)
      continue;
    bool Guarded = false;
    for (std::size_t J = 0; J < All.size(); ++J) {
      const Reached &Other = All[J];
      // Two written tensors: one check for the pair.
      if (J == I || (Other.Written && J < I))
        continue;
      OverlapCheck::Kind Kind = OverlapCheck::Kind::Any;
      if (Written.Var && Other.Var && !Other.Container) {
        auto [Proved, Of] = Prove(Written.Var, Other.Var);
        bool ReadOwnSlots =
            !Other.Written && SameViewSafe(Written.Var, Other.Var);
        if (Proved == Proof::Disjoint ||
            (Proved == Proof::SameView && ReadOwnSlots))
          continue;
        // One tensor under two names (`Tensor h = out;`), read whole or at
        // slots other examples write: the dependence between examples that
        // checkReads and checkReductions refuse under one name.
        if (Proved == Proof::SameView && !Other.Written) {
          bool Accumulator =
              llvm::any_of(ReductionSites, [&](const ReductionSite &Site) {
                return Site.Accumulator == Written.Var;
              });
          Ok &= Accumulator
                    ? refuseAt(diag::refuse_accumulator_read,
                               Other.Site->getSourceRange(),
                               diag::note_accumulator,
                               {"'" + Written.Name + "'"})
                    : refuseAt(diag::refuse_loop_carried,
                               Other.Site->getSourceRange(),
                               diag::note_own_slot, {"'" + Written.Name + "'"});
          continue;
        }
        if (Proved == Proof::Overlap) {
          // `Tensor out = x.narrow(0, 1, n - 1);` with x read: out lies in x.
          Access RootW = rootOf(Written.Var), RootO = rootOf(Other.Var);
          if (!Other.Written && RootW.Base == RootO.Base &&
              RootO.Steps.size() < RootW.Steps.size())
            Ok &= refuseAt(diag::refuse_alias_shifted,
                           Other.Site->getSourceRange(), diag::note_alias,
                           {"'" + Written.Name + "'", "'" + Other.Name + "'"});
          else
            Ok &= refuseAt(diag::refuse_alias_overlap,
                           Other.Site->getSourceRange(),
                           diag::note_alias_overlap,
                           {"'" + Written.Name + "'", "'" + Other.Name + "'",
                            "'" + Of->getNameAsString() + "'",
                            Other.Written ? "writes" : "reads"});
          continue;
        }
        if (ReadOwnSlots)
          Kind = OverlapCheck::Kind::UnlessSameView;
      }
      Guard(Written, Other, Kind);
      Guarded = true;
    }
    // Checked against nothing else, a written tensor still needs the check
    // of its own elements (batched.hpp: every guard makes it too).
    if (!Guarded && !(Written.Var && Fresh(rootOf(Written.Var).Base) &&
                      rootOf(Written.Var).Steps.empty()))
      Guard(Written, Reached{}, OverlapCheck::Kind::Internal);
  }

  // C++ scalars. A reduction into a scalar another name can reach (a global
  // or static, a member, a reference) must not be read under that name in
  // the loop: as written each example reads the sum so far, batched every
  // example reads the value before the loop. Read by a same-file function
  // under its own name, it is refused at the call (as a tensor is above);
  // under a name that may be it (a reference), the guard compares addresses.
  auto Shared = [&](const VarDecl *Var) {
    return Var->getType()->isReferenceType() || Var->hasGlobalStorage();
  };
  // A const object is no accumulator (and `&` of a `static const int`
  // member declared only in its class would not link). A member path's type
  // is the access's: `cfg.scale` through a `const Cfg &` may be the
  // caller's non-const scalar.
  auto ReadOnly = [&](const ValueDecl *Decl) {
    const auto *Var = dyn_cast<VarDecl>(Decl);
    return Decl->getType().isConstQualified() &&
           !(Var &&
             llvm::is_contained(llvm::make_second_range(MemberVars), Var));
  };
  std::vector<Reached> Accumulators, ScalarReads;
  auto AddTo = [](std::vector<Reached> &To, Reached R) {
    if (llvm::none_of(To, [&](const Reached &Other) {
          return Other.Name == R.Name || Other.Decl == R.Decl;
        }))
      To.push_back(std::move(R));
  };
  for (const ReductionSite &Site : ReductionSites)
    if (isScalarType(Site.Accumulator->getType()) &&
        !Locals.count(Site.Accumulator) && Shared(Site.Accumulator))
      AddTo(Accumulators, OfVar(Site.Accumulator, Site.Site, true));
  bool WritesTensors = llvm::any_of(All, [](const Reached &R) { return R.Written; });
  if (Accumulators.empty() && !WritesTensors)
    return Ok;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    const VarDecl *Var = nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      Var = dyn_cast<VarDecl>(Ref->getDecl());
    else if (const auto *Member = dyn_cast<MemberExpr>(S))
      Var = memberVar(Member);
    if (Var && isScalarType(Var->getType()) && !Locals.count(Var) &&
        !InductionLevel.count(Var) && Shared(Var) && !ReadOnly(Var))
      AddTo(ScalarReads, OfVar(Var, cast<Expr>(S), false));
    for (const Stmt *Child : S->children())
      Walk(Child);
  };
  Walk(Loops[Top].For);
  for (const auto &[Call, Where] : Calls) {
    llvm::SmallPtrSet<const FunctionDecl *, 8> Seen;
    bool Refused = false;
    forEachTensorThroughCall(
        Call, NameInLoop, Context, Seen,
        [&](std::string Name, const ValueDecl *Decl, bool) {
          auto Acc = llvm::find_if(Accumulators, [&](const Reached &A) {
            return A.Name == Name || A.Decl == Decl;
          });
          if (Acc == Accumulators.end()) {
            if (!ReadOnly(Decl))
              AddTo(ScalarReads, {Name, nullptr, Decl, Call, false, false});
            return;
          }
          if (!std::exchange(Refused, true))
            Ok &= refuseAt(diag::refuse_callee_reads_output,
                           Call->getSourceRange(), diag::note_callee_reads_output,
                           {"'" + Call->getDirectCallee()->getNameAsString() +
                                "'",
                            "'" + Acc->Name + "'", "reduces into"});
        },
        [](std::string, bool) {}, /*Scalars=*/true);
  }
  // Two names that are two objects: distinct variables that are not
  // references, or two fields of the object the loop runs on.
  auto Distinct = [&](const Reached &A, const Reached &B) {
    const auto *VarA = dyn_cast_or_null<VarDecl>(A.Decl);
    const auto *VarB = dyn_cast_or_null<VarDecl>(B.Decl);
    auto Plain = [&](const VarDecl *Var) {
      return Var && !Var->getType()->isReferenceType() &&
             !llvm::is_contained(llvm::make_second_range(MemberVars), Var);
    };
    auto OwnField = [](llvm::StringRef Name) {
      return Name.consume_front("this->") &&
             Name.find_first_of(".->[(") == llvm::StringRef::npos;
    };
    return (Plain(VarA) && Plain(VarB)) ||
           (OwnField(A.Name) && OwnField(B.Name));
  };
  for (std::size_t I = 0; I < Accumulators.size(); ++I)
    for (const Reached &Read : ScalarReads) {
      auto Same = [&](const Reached &A) {
        return A.Name == Read.Name || A.Decl == Read.Decl;
      };
      // The accumulator itself is checkReductions'; a pair of accumulators
      // is checked once.
      if (Same(Accumulators[I]) ||
          std::any_of(Accumulators.begin(), Accumulators.begin() + I, Same) ||
          Distinct(Accumulators[I], Read))
        continue;
      Result.OverlapChecks.push_back(
          {Accumulators[I].Name, Read.Name,
           Accumulators[I].Decl->getLocation(), Read.Decl->getLocation(),
           OverlapCheck::Kind::SameObject});
    }
  // A scalar reference may be bound into a tensor's elements (`float &s =
  // *t.data_ptr<float>();`): one the loop reduces into against each tensor it
  // reaches, one it reads against each tensor it writes.
  auto Reference = [](const Reached &R) {
    const auto *Value = dyn_cast_or_null<ValueDecl>(R.Decl);
    return Value && Value->getType()->isReferenceType();
  };
  for (const Reached &Tensor : All)
    if (!Tensor.Container)
      for (const Reached &Scalar : ScalarReads)
        if (Reference(Scalar) &&
            (Tensor.Written || llvm::any_of(Accumulators, [&](const Reached &A) {
               return A.Decl == Scalar.Decl;
             })))
          Result.OverlapChecks.push_back(
              {Tensor.Name, Scalar.Name,
               Tensor.Decl ? Tensor.Decl->getLocation() : SourceLocation(),
               Scalar.Decl->getLocation(), OverlapCheck::Kind::ScalarInTensor});
  return Ok;
}

const VarDecl *Analyser::storageOf(const VarDecl *Var,
                                   bool ThroughCopies) const {
  // Bounded: a declaration's initialiser names only earlier variables.
  for (unsigned Step = 0; Var && Step < 64; ++Step) {
    bool Copy = ThroughCopies && isTensorType(Var->getType()) &&
                !isa<ParmVarDecl>(Var) && Var->getInit();
    if (!isBoundReference(Var) && !Copy)
      return Var;
    const VarDecl *Next = referencedVar(Var->getInit());
    if (!Next)
      return Var;
    Var = Next;
  }
  return Var;
}

bool Analyser::writesElements(const WriteEvent &W) const {
  if (!W.Written.Steps.empty())
    return true;
  return W.Resolved.Base != W.Written.Base && !isRebinding(W, W.Written.Base);
}

bool Analyser::ownsElements(const VarDecl *Var) const {
  if (Var->getInit() && !hasOwnElements(Var->getInit()))
    return false;
  return llvm::all_of(Writes, [&](const WriteEvent &W) {
    return !isRebinding(W, Var) || !W.Value || hasOwnElements(W.Value);
  });
}
} // namespace detail
} // namespace clang_vmap
