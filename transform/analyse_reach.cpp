//===- analyse_reach.cpp - The tensors a vmap loop reaches ------------------===//
//
// The walk's (analyse.cpp) reads of what a loop reaches besides its own
// variables (Note [Every tensor the loop reaches] in analyse_classify.cpp):
// containers of tensors, data members, tensors through pointers, each member
// path named as a variable of its own.
//
//===----------------------------------------------------------------------===//

#include "analyse.h"
#include "analyse_detail.h"
#include "ast_util.h"
#include "diagnostics.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"

using namespace clang;

namespace clang_vmap::detail {

// std::vector, std::array, std::deque or std::span of Tensor, or a C array of
// them: what a range-based `for` over it yields is a Tensor.
bool holdsTensors(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (const auto *Array = dyn_cast<ConstantArrayType>(T.getTypePtr()))
    return isTensorType(Array->getElementType());
  const auto *Record = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T->getAsCXXRecordDecl());
  if (!Record || !Record->isInStdNamespace() ||
      !llvm::is_contained({"vector", "array", "deque", "span"},
                          Record->getName()))
    return false;
  const TemplateArgumentList &Args = Record->getTemplateArgs();
  return Args.size() > 0 && Args[0].getKind() == TemplateArgument::Type &&
         isTensorType(Args[0].getAsType());
}

const NamedDecl *declOf(const Expr *E) {
  if (const VarDecl *Var = referencedVar(E))
    return Var;
  if (const auto *Member = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts()))
    return Member->getMemberDecl();
  return nullptr;
}

bool pointsToTensors(QualType T) {
  T = T.getNonReferenceType();
  return T->isPointerType() && (isTensorType(T->getPointeeType()) ||
                                holdsTensors(T->getPointeeType()));
}

void Analyser::readsContainer(const Expr *Container) {
  const VarDecl *Var = referencedVar(Container);
  if (Var && holdsTensors(Var->getType()) &&
      !llvm::is_contained(TensorContainers, Var))
    TensorContainers.push_back(Var);
}

std::optional<std::string>
Analyser::nameBeforeLoop(const Expr *E) const {
  E = E->IgnoreParenImpCasts();
  if (isa<CXXThisExpr>(E))
    return std::string("this");
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || Locals.count(Var))
      return std::nullopt;
    std::string Name;
    llvm::raw_string_ostream OS(Name);
    if (NestedNameSpecifier *Qualifier = Ref->getQualifier())
      Qualifier->print(OS, Context.getPrintingPolicy());
    OS << Var->getName();
    return Name;
  }
  const auto *Member = dyn_cast<MemberExpr>(E);
  if (!Member || !isa<FieldDecl>(Member->getMemberDecl()))
    return std::nullopt;
  std::optional<std::string> Base = nameBeforeLoop(Member->getBase());
  if (!Base)
    return std::nullopt;
  return *Base + (Member->isArrow() ? "->" : ".") +
         Member->getMemberDecl()->getNameAsString();
}

// Note [Every tensor the loop reaches]: a data member is no variable the
// accesses resolve to, so it is recorded here, by the name the overlap guard
// gives it before the loop (checkAliasing).
bool Analyser::readsMember(const MemberExpr *Member) {
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (Result.Callee || !Field ||
      !(isTensorType(Field->getType()) || holdsTensors(Field->getType())))
    return true;
  std::optional<std::string> Name = nameBeforeLoop(Member);
  if (!Name)
    return refuseAt(diag::refuse_tensor_not_checkable,
                    Member->getSourceRange(), diag::note_tensor_not_checkable,
                    {"'" + text(Member) + "'"});
  if (llvm::none_of(ReachedMembers, [&](const ReachedMember &M) {
        return M.Name == *Name;
      }))
    ReachedMembers.push_back({*Name, Member, Field,
                              holdsTensors(Field->getType())});
  return true;
}

// `*W`, `W->sum()` with `const Tensor *W` declared outside the loop: the
// tensor it points to is reached as `(*W)`; `W[k]` may be any tensor of an
// array the loop cannot name (Note [Every tensor the loop reaches]).
bool Analyser::readsThroughPointer(const Expr *E) {
  const Expr *Pointer = nullptr;
  if (const auto *Unary = dyn_cast<UnaryOperator>(E);
      Unary && Unary->getOpcode() == UO_Deref)
    Pointer = Unary->getSubExpr();
  else if (const auto *Member = dyn_cast<MemberExpr>(E);
           Member && Member->isArrow())
    Pointer = Member->getBase();
  else if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
    Pointer = Subscript->getBase();
  if (Result.Callee || !Pointer ||
      !pointsToTensors(Pointer->IgnoreParenImpCasts()->getType()))
    return true;
  const NamedDecl *Decl = declOf(Pointer);
  const auto *Var = dyn_cast_or_null<VarDecl>(Decl);
  if (Var && Locals.count(Var))
    return true; // what a local points to, the loop's own reads reach
  std::optional<std::string> Name = nameBeforeLoop(Pointer);
  if (!Name || isa<ArraySubscriptExpr>(E))
    return refuseAt(diag::refuse_tensor_not_checkable, E->getSourceRange(),
                    diag::note_tensor_not_checkable,
                    {"'" + text(E) + "'"});
  *Name = "(*" + *Name + ")";
  if (llvm::none_of(ReachedMembers, [&](const ReachedMember &M) {
        return M.Name == *Name;
      }))
    ReachedMembers.push_back(
        {*Name, E, Decl, holdsTensors(Pointer->getType()->getPointeeType())});
  return true;
}

/// Note [Members as variables]
/// A data member reached from `this` or from a variable declared outside the
/// loop (`out_`, `this->out_`, `s.out` with `S &s`, `p->out`) holds the same
/// tensor or number for every example, as a global does: the analysis treats
/// each such path as a variable of its own, declared nowhere in the function,
/// so its stores, reductions and reads are checked as a global's, and a tensor
/// the loop writes or reads through it enters the run-time overlap guard,
/// which names it by its path. One variable per path: `out_` and
/// `this->out_` are one; `a.out` and `b.out` are two (the guard checks them
/// against each other if one is written). Members of other types (a
/// std::vector of tensors, a static member) are not variables: they stay
/// refused as outputs.
const VarDecl *Analyser::memberVar(const MemberExpr *Member) const {
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field || !(isTensorType(Field->getType()) ||
                  isScalarType(Field->getType().getNonReferenceType())))
    return nullptr;
  QualType Type = Member->getType().getNonReferenceType();
  SourceLocation Loc = Member->getBeginLoc();
  std::string Path;
  for (const Expr *Object = Member->getBase()->IgnoreParenImpCasts();;) {
    std::string Step = Member->isArrow() ? "->" : ".";
    if (isa<CXXThisExpr>(Object)) {
      Path = "this" + Step + Field->getNameAsString() + Path;
      break;
    }
    if (const VarDecl *Var = referencedVar(Object)) {
      if (Locals.count(Var))
        return nullptr; // an object of the example's own
      Path = Var->getNameAsString() + Step + Field->getNameAsString() + Path;
      break;
    }
    const auto *Outer = dyn_cast<MemberExpr>(Object);
    if (!Outer || !isa<FieldDecl>(Outer->getMemberDecl()))
      return nullptr;
    Path = Step + Field->getNameAsString() + Path;
    Field = cast<FieldDecl>(Outer->getMemberDecl());
    Member = Outer;
    Object = Outer->getBase()->IgnoreParenImpCasts();
  }
  const VarDecl *&Var = MemberVars[Path];
  if (!Var) {
    VarDecl *Made =
        VarDecl::Create(Context, Context.getTranslationUnitDecl(), Loc, Loc,
                        &Context.Idents.get(Path), Type,
                        Context.getTrivialTypeSourceInfo(Type), SC_None);
    Made->setImplicit(); // declared nowhere: emit prints its path as it is
    Var = Made;
  }
  return Var;
}

} // namespace clang_vmap::detail
