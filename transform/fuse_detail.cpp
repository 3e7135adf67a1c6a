//===- fuse_detail.cpp - The AST helpers of fuse.cpp ----------------------===//

#include "fuse_detail.h"
#include "analyse.h"
#include "ast_util.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
namespace rules = vmap::rules;

namespace clang_vmap {

bool isLibraryOp(const CallExpr *Call) {
  std::size_t Op = fuse_detail::opOf(Call);
  if (Op == rules::kNoOp)
    return false;
  const rules::OpEntry &Entry = rules::kOpTable[Op];
  return Entry.family == rules::Family::linalg ||
         Entry.rule == rules::RuleId::along_dim ||
         Entry.rule == rules::RuleId::topk;
}

} // namespace clang_vmap

namespace clang_vmap::fuse_detail {

/// The op-table entry \p Call is, or kNoOp.
std::size_t opOf(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !isInVmapNamespace(Callee))
    return rules::kNoOp;
  std::string Name = calleeName(Call);
  int Arity = static_cast<int>(Call->getNumArgs());
  if (isa<CXXOperatorCallExpr>(Call))
    return rules::find_op(Name,
                          Arity == 1 ? rules::OpForm::unary_operator
                                     : rules::OpForm::binary_operator,
                          Arity);
  if (isa<CXXMemberCallExpr>(Call))
    return rules::find_op(Name, rules::OpForm::member, Arity + 1);
  return rules::find_op(Name, rules::OpForm::free_function, Arity);
}

bool isPointwiseRule(rules::RuleId Rule) {
  return Rule == rules::RuleId::unary_pointwise ||
         Rule == rules::RuleId::binary_pointwise ||
         Rule == rules::RuleId::ternary_where || Rule == rules::RuleId::clamp;
}

bool isElementOp(const CallExpr *Call, const LoopAnalysis &A) {
  if (!A.isBatched(Call) || !isTensorType(Call->getType()))
    return false;
  std::size_t Op = opOf(Call);
  if (Op == rules::kNoOp || !isPointwiseRule(rules::kOpTable[Op].rule) ||
      !rules::has_element_form(rules::kOpTable[Op].name))
    return false;
  // A mode such as div's rounding_mode is not an element operand.
  return llvm::all_of(operandsOf(Call), [](const Expr *Operand) {
    QualType Type = stripImplicit(Operand)->getType();
    return isTensorType(Type) || isScalarType(Type);
  });
}

/// The operands of a call as the user writes them: the object first (but a
/// lambda's, whose clone or kernel text stands for it).
llvm::SmallVector<const Expr *, 4> operandsOf(const CallExpr *Call) {
  llvm::SmallVector<const Expr *, 4> Operands;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Operands.push_back(Member->getImplicitObjectArgument());
  llvm::ArrayRef<const Expr *> Args(Call->getArgs(), Call->getNumArgs());
  if (lambdaVariable(Call->getDirectCallee()))
    Args = parameterArguments(Call);
  for (const Expr *Arg : Args)
    if (!isa<CXXDefaultArgExpr>(Arg))
      Operands.push_back(Arg);
  return Operands;
}

/// A number, bool or string literal, or `std::nullopt`: the same for every
/// example and every element, so it stays in the kernel's text.
bool isLiteral(const Expr *E) {
  E = stripImplicit(E);
  // A constant written with operators and casts of C++ numbers (`-8`,
  // `~(int64_t)7`, `int64_t{7}`) is one too: printed where it is written.
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    if (Unary->getOpcode() == UO_Minus || Unary->getOpcode() == UO_Plus ||
        Unary->getOpcode() == UO_Not || Unary->getOpcode() == UO_LNot)
      return isLiteral(Unary->getSubExpr());
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(E);
      Cast && Cast->getType()->isArithmeticType())
    return isLiteral(Cast->getSubExpr());
  if (const auto *List = dyn_cast<InitListExpr>(E);
      List && List->getNumInits() == 1 && List->getType()->isArithmeticType())
    return isLiteral(List->getInit(0));
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return Var->getQualifiedNameAsString() == "std::nullopt";
  return isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
             StringLiteral>(E);
}

namespace {

/// Whether \p T, as written, names only what a device program has.
bool portableType(QualType T) {
  T = T.getNonReferenceType();
  // A template's parameter (`T`, a float here): the device program has no T.
  if (T->getAs<SubstTemplateTypeParmType>())
    return false;
  if (const auto *Typedef = T->getAs<TypedefType>()) {
    const DeclContext *Context = Typedef->getDecl()->getDeclContext();
    return T.getCanonicalType()->isBuiltinType() &&
           (Context->isTranslationUnit() || Context->isStdNamespace());
  }
  if (T->isPointerType())
    return false;
  return T.getCanonicalType()->isBuiltinType() || T->isUndeducedAutoType() ||
         T->getContainedAutoType();
}

/// Whether \p D is a function of namespace std or vmap (or a builtin).
bool portableFunction(const FunctionDecl *F) {
  if (F->getBuiltinID())
    return true;
  for (const DeclContext *Context = F->getDeclContext(); Context;
       Context = Context->getParent())
    if (const auto *Namespace = dyn_cast<NamespaceDecl>(Context))
      if (Namespace->isStdNamespace() || Namespace->getName() == "vmap")
        return true;
  return F->getDeclContext()->isTranslationUnit() &&
         F->getASTContext().getSourceManager().isInSystemHeader(
             F->getLocation()); // ::sqrt
}

} // namespace

bool portableText(const Stmt *S, const FusedChain &Chain) {
  if (!S)
    return true;
  if (const auto *E = dyn_cast<Expr>(S))
    if (Chain.Parameters.count(E))
      return true; // printed as the parameter's name
  if (S->getBeginLoc().isMacroID() || S->getEndLoc().isMacroID())
    return false;
  if (isa<SubstNonTypeTemplateParmExpr>(S))
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S)) {
    const ValueDecl *D = Ref->getDecl();
    if (const auto *Var = dyn_cast<VarDecl>(D))
      return Chain.Declared.count(Var) || llvm::is_contained(Chain.Locals, Var);
    if (const auto *F = dyn_cast<FunctionDecl>(D))
      return portableFunction(F);
    return false;
  }
  if (const auto *Cast = dyn_cast<ExplicitCastExpr>(S))
    if (!portableType(Cast->getTypeAsWritten()))
      return false;
  if (const auto *Trait = dyn_cast<UnaryExprOrTypeTraitExpr>(S))
    if (Trait->isArgumentType() && !portableType(Trait->getArgumentType()))
      return false;
  // A declaration's type as written (a tensor local of a fused region prints
  // as `auto`; one that becomes a parameter, not at all; a scalar kernel's
  // locals as written).
  if (const auto *Declaration = dyn_cast<DeclStmt>(S))
    for (const Decl *D : Declaration->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D))
        if (const TypeSourceInfo *Info = Var->getTypeSourceInfo())
          if (!isTensorType(Var->getType()) &&
              (Chain.Scalar || !llvm::is_contained(Chain.Locals, Var)) &&
              !portableType(Info->getType()))
            return false;
  // Template arguments written at a member call (`x.item<T>()`).
  if (const auto *Member = dyn_cast<MemberExpr>(S))
    for (const TemplateArgumentLoc &Argument : Member->template_arguments())
      if (Argument.getArgument().getKind() == TemplateArgument::Type &&
          !portableType(Argument.getTypeSourceInfo()
                            ? Argument.getTypeSourceInfo()->getType()
                            : Argument.getArgument().getAsType()))
        return false;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *Callee = Call->getDirectCallee())
      if (!isa<CXXMethodDecl>(Callee) && !portableFunction(Callee))
        return false;
  return llvm::all_of(S->children(), [&](const Stmt *Child) {
    return portableText(Child, Chain);
  });
}

/// Whether some of \p S comes from a macro (the printer splices file text).
bool inMacro(const Stmt *S) {
  if (!S)
    return false;
  if (S->getBeginLoc().isMacroID() || S->getEndLoc().isMacroID())
    return true;
  return llvm::any_of(S->children(), inMacro);
}

/// The names of the variables \p S reads.
void namesIn(const Stmt *S, llvm::StringSet<> &Names) {
  if (!S)
    return;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    Names.insert(Ref->getDecl()->getName());
  for (const Stmt *Child : S->children())
    namesIn(Child, Names);
}

/// Every variable's number of references under \p S.
void countAllRefs(const Stmt *S, llvm::DenseMap<const VarDecl *, unsigned> &Counts) {
  if (!S)
    return;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      ++Counts[Var];
  for (const Stmt *Child : S->children())
    countAllRefs(Child, Counts);
}

/// The assignment `v = e` or `v op= e` that statement \p S is, or null.
const CXXOperatorCallExpr *assignmentOf(const Stmt *S) {
  const auto *E = dyn_cast<Expr>(S);
  const auto *Call =
      dyn_cast_or_null<CXXOperatorCallExpr>(E ? stripImplicit(E) : nullptr);
  if (!Call || Call->getNumArgs() != 2 || !Call->isAssignmentOp())
    return nullptr;
  return Call;
}

/// The body of a plain loop as a list of statements.
llvm::SmallVector<const Stmt *, 8> statementsOf(const Stmt *Body) {
  llvm::SmallVector<const Stmt *, 8> List;
  if (const auto *Compound = dyn_cast_or_null<CompoundStmt>(Body))
    List.append(Compound->body_begin(), Compound->body_end());
  else if (Body)
    List.push_back(Body);
  return List;
}

/// A loop `for (int r = A; r < B; ...)` with integer literals A < B (or
/// `<=`, `!=`, `>`, `>=` likewise) runs its body at least once.
bool runsAtLeastOnce(const ForStmt *For) {
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  const auto *Condition =
      dyn_cast_or_null<BinaryOperator>(stripImplicit(For->getCond()));
  if (!Init || !Init->isSingleDecl() || !Condition)
    return false;
  const auto *Counter = dyn_cast<VarDecl>(Init->getSingleDecl());
  const auto *From = dyn_cast_or_null<IntegerLiteral>(
      Counter ? stripImplicit(Counter->getInit()) : nullptr);
  const auto *To = dyn_cast<IntegerLiteral>(stripImplicit(Condition->getRHS()));
  if (!From || !To || referencedVar(Condition->getLHS()) != Counter)
    return false;
  llvm::APInt A = From->getValue(), B = To->getValue();
  if (A.getBitWidth() != B.getBitWidth())
    return false;
  switch (Condition->getOpcode()) {
  case BO_LT: return A.slt(B);
  case BO_LE: return A.sle(B);
  case BO_GT: return A.sgt(B);
  case BO_GE: return A.sge(B);
  case BO_NE: return A != B;
  default: return false;
  }
}

const CXXOperatorCallExpr *elementSubscript(const Expr *E) {
  const auto *Call = dyn_cast<CXXOperatorCallExpr>(stripImplicit(E));
  if (!Call || Call->getOperator() != OO_Subscript || Call->getNumArgs() != 2 ||
      !Call->getDirectCallee() || !isInVmapNamespace(Call->getDirectCallee()) ||
      !isTensorType(Call->getArg(0)->getType()) ||
      !isScalarType(Call->getArg(1)->getType()))
    return nullptr;
  return Call;
}

const Expr *itemObject(const Expr *E) {
  const auto *Call = dyn_cast<CXXMemberCallExpr>(stripImplicit(E));
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || Callee->getName() != "item" || !isInVmapNamespace(Callee) ||
      Call->getNumArgs() != 0 || !isKernelType(Call->getType()) ||
      !isTensorType(Call->getImplicitObjectArgument()->getType()))
    return nullptr;
  return Call->getImplicitObjectArgument();
}

bool isKernelType(QualType T) {
  const auto *Builtin =
      T.getNonReferenceType().getCanonicalType()->getAs<BuiltinType>();
  if (!Builtin)
    return false;
  switch (Builtin->getKind()) {
  case BuiltinType::Bool:
  case BuiltinType::Short:
  case BuiltinType::Int:
  case BuiltinType::Long:
  case BuiltinType::LongLong:
  case BuiltinType::Float:
  case BuiltinType::Double:
    return true;
  default:
    return false;
  }
}

KernelChoice::KernelChoice(const LoopAnalysis &A)
    : A(A), Context(*A.Context),
      Body(A.Loop ? A.Loop->For->getBody() : A.Callee->getBody()) {
  countAllRefs(Body, BodyRefs);
}

void KernelChoice::addOperand(const Expr *E, FusedChain &Chain,
                              const VarDecl *Local, bool ElementRead,
                              bool ElementWrite) const {
  // The operand as the call holds it, conversions included: they are
  // printed outside the kernel. One written twice is one parameter where it
  // is read as one type (`kGain` read as a double in `acc += kGain` and as a
  // float in `t * kGain` is two: each read keeps its own arithmetic).
  std::string Text = sourceText(Context, E->getSourceRange()).str();
  unsigned Index = 0;
  for (; Index < Chain.Operands.size(); ++Index)
    if (!Local && !Chain.Locals[Index] &&
        Chain.ElementReads[Index] == ElementRead &&
        Chain.ElementWrites[Index] == ElementWrite &&
        Context.hasSameUnqualifiedType(Chain.Operands[Index]->getType(),
                                       E->getType()) &&
        sourceText(Context, Chain.Operands[Index]->getSourceRange()) == Text)
      break;
  if (Index == Chain.Operands.size()) {
    Chain.Operands.push_back(E);
    Chain.Locals.push_back(Local);
    Chain.ElementReads.push_back(ElementRead);
    Chain.ElementWrites.push_back(ElementWrite);
  }
  Chain.Parameters[E] = Index;
}

bool KernelChoice::mentionsDeclared(const Stmt *S,
                                    const FusedChain &Chain) const {
  if (!S)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      if (Chain.Declared.count(Var))
        return true;
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return mentionsDeclared(Child, Chain);
  });
}

bool KernelChoice::isPure(const Stmt *S) const {
  if (!S)
    return true;
  if (isa<LambdaExpr, CXXNewExpr, CXXDeleteExpr, CXXThrowExpr, StmtExpr>(S))
    return false;
  if (const auto *Binary = dyn_cast<BinaryOperator>(S))
    if (Binary->isAssignmentOp())
      return false;
  if (const auto *Unary = dyn_cast<UnaryOperator>(S))
    if (Unary->isIncrementDecrementOp() || Unary->getOpcode() == UO_AddrOf)
      return false;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(S)) {
    const FunctionDecl *Callee = Operator->getDirectCallee();
    if (!Callee || !isInVmapNamespace(Callee) || Operator->isAssignmentOp())
      return false;
  } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
    std::size_t Op = opOf(Call);
    if (Op == rules::kNoOp && !isMetadataCall(Call))
      return false;
    if (Op != rules::kNoOp) {
      const rules::OpEntry &Entry = rules::kOpTable[Op];
      if (Entry.writes_first_argument() || Entry.random ||
          Entry.family == rules::Family::inplace ||
          Entry.family == rules::Family::refused)
        return false;
    }
  }
  return llvm::all_of(S->children(),
                      [&](const Stmt *Child) { return isPure(Child); });
}

bool KernelChoice::holdsKernel(const Stmt *S) const {
  if (!S)
    return false;
  if (const auto *E = dyn_cast<Expr>(S))
    if (Result.Chains.count(E))
      return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return holdsKernel(Child); });
}

void KernelChoice::declare(const Stmt *S, FusedChain &Chain) const {
  if (!S)
    return;
  if (const auto *Declaration = dyn_cast<DeclStmt>(S))
    for (const Decl *D : Declaration->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D))
        Chain.Declared.insert(Var);
  for (const Stmt *Child : S->children())
    declare(Child, Chain);
}

bool KernelChoice::diesAtConsumer(ArrayRef<const Stmt *> Region,
                                  const Expr *Root,
                                  const FusedChain &Chain) const {
  llvm::DenseMap<const VarDecl *, unsigned> Refs;
  for (const Stmt *S : Region)
    countAllRefs(S, Refs);
  countAllRefs(Root, Refs);
  // The first one declared, for a remark that reads the same every run.
  const VarDecl *Used = nullptr;
  for (const VarDecl *Var : Chain.Declared)
    if (Refs.lookup(Var) != BodyRefs.lookup(Var) &&
        (!Used || Context.getSourceManager().isBeforeInTranslationUnit(
                      Var->getLocation(), Used->getLocation())))
      Used = Var;
  // A kernel that stores (no Root) ends with its region.
  const Stmt *Last = Root ? static_cast<const Stmt *>(Root) : Region.back();
  if (Used)
    whyNot("its local '" + Used->getNameAsString() + "' is used after line " +
           std::to_string(lineOf(Context, Last->getEndLoc())) +
           ", and a kernel's locals live only inside it");
  return !Used;
}

} // namespace clang_vmap::fuse_detail
