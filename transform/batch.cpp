//===- batch.cpp - Lower each call of a vmap loop to a batched call -------===//

#include "batch.h"
#include "ast_util.h"
#include "diagnostics.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include <vmap/rules/op_table.hpp>
#include <functional>

using namespace clang;
namespace rules = vmap::rules;

namespace clang_vmap {
namespace {

bool isRandomFactory(StringRef Name) { return rules::is_random_factory(Name); }

/// Whether \p S, a function's body, calls a random factory of vmap itself.
bool drawsRandom(const Stmt *S) {
  if (const auto *Call = dyn_cast_or_null<CallExpr>(S);
      Call && isRandomDraw(Call))
    return true;
  return S && llvm::any_of(S->children(), drawsRandom);
}

bool isIoFunction(StringRef Name) {
  static const char *const Io[] = {
      "printf",  "fprintf", "sprintf", "snprintf", "puts",   "fputs",
      "putchar", "fputc",   "fwrite",  "fread",    "scanf",  "fscanf",
      "getchar", "fopen",   "fclose",  "fflush",   "perror", "write",
      "read",    "print",   "println", "system",   "exit",   "abort"};
  return llvm::is_contained(Io, Name);
}

bool isStreamType(QualType T) {
  const CXXRecordDecl *Record =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (!Record)
    return false;
  StringRef Name = Record->getName();
  return Name.contains("ostream") || Name.contains("istream") ||
         Name.contains("basic_ios") || Name.contains("stream");
}

/// Declared in namespace std, the static members of its classes included
/// (`std::numeric_limits<float>::infinity()`).
bool isInStd(const Decl *D) {
  const DeclContext *Context = D->getDeclContext();
  while (Context && Context->isRecord())
    Context = Context->getParent();
  return Context && Context->isStdNamespace();
}

/// What an argument of this kind is, for a user, when it must be the same for
/// every example; nullptr when it may vary per example.
const char *invariantKindName(rules::ArgKind Kind) {
  switch (Kind) {
  case rules::ArgKind::dim:
    return "a dimension";
  case rules::ArgKind::dim_list:
    return "a list of dimensions";
  case rules::ArgKind::shape:
    return "a shape";
  case rules::ArgKind::integer:
    return "an integer option of the op, such as a count or a diagonal";
  case rules::ArgKind::number:
    return "an option of the op";
  case rules::ArgKind::keepdim:
    return "a flag";
  case rules::ArgKind::text:
    return "a mode";
  case rules::ArgKind::conversion:
    return "a dtype or device";
  case rules::ArgKind::options:
    return "tensor options";
  case rules::ArgKind::pointer:
    return "a pointer";
  default:
    return nullptr;
  }
}

/// A function whose result depends only on its arguments, as far as this
/// translation unit shows: no writes outside its locals, no I/O, and only
/// calls of functions like it.
bool isPure(const FunctionDecl *Function, unsigned Depth = 0);

bool isPureStmt(const Stmt *S, const FunctionDecl *Function, unsigned Depth) {
  if (!S)
    return true;
  auto IsLocal = [&](const Expr *Target) {
    const Expr *Base = stripImplicit(Target);
    while (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Base)) {
      if (Operator->getOperator() != OO_Subscript)
        break;
      Base = stripImplicit(Operator->getArg(0));
    }
    const VarDecl *Var = referencedVar(Base);
    return Var && Var->isLocalVarDecl() && !Var->isStaticLocal() &&
           Var->getDeclContext() == Function;
  };
  if (isa<CXXThrowExpr>(S) || isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S) ||
      isa<GotoStmt>(S) || isa<LambdaExpr>(S))
    return false;
  if (const auto *Binary = dyn_cast<BinaryOperator>(S))
    if (Binary->isAssignmentOp() && !IsLocal(Binary->getLHS()))
      return false;
  if (const auto *Unary = dyn_cast<UnaryOperator>(S))
    if (Unary->isIncrementDecrementOp() && !IsLocal(Unary->getSubExpr()))
      return false;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return false;
    std::string Name = Callee->getNameAsString();
    if (isRandomFactory(Name) || isIoFunction(Name))
      return false;
    const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
    if (Operator && Operator->isAssignmentOp() &&
        !IsLocal(Operator->getArg(0)))
      return false;
    if (Operator && Operator->getNumArgs() > 0 &&
        isStreamType(Operator->getArg(0)->getType()))
      return false;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      if (Name.ends_with("_") &&
          !IsLocal(Member->getImplicitObjectArgument()))
        return false;
    bool Known = isInVmapNamespace(Callee) ||
                 isCmath(Callee, Call->getNumArgs()) ||
                 (Callee != Function && isPure(Callee, Depth + 1));
    if (!Known && !Callee->isInStdNamespace())
      return false;
  }
  for (const Stmt *Child : S->children())
    if (!isPureStmt(Child, Function, Depth))
      return false;
  return true;
}

bool isPure(const FunctionDecl *Function, unsigned Depth) {
  const FunctionDecl *Definition = nullptr;
  if (Depth > 8 || !Function->hasBody(Definition) || !Definition)
    return false;
  return isPureStmt(Definition->getBody(), Definition, Depth);
}

class Batcher {
public:
  Batcher(BatchPlan &Plan, Diagnostics &Diags)
      : Plan(Plan), Context(*Plan.Analysis.Context), Diags(Diags) {}

  /// Lowers every call under \p S, reporting every refusal (Note [Every
  /// refusal] in analyse_check.cpp); the arguments of a refused call are not
  /// looked at.
  bool visit(const Stmt *S) {
    if (!S)
      return true;
    if (const auto *Call = dyn_cast<CallExpr>(S))
      if (!lower(Call))
        return false;
    // A range-based `for`'s begin/end/++ calls are implicit: the loop's own.
    if (const auto *Range = dyn_cast<CXXForRangeStmt>(S)) {
      bool Ok = visit(Range->getRangeInit());
      return visit(Range->getBody()) && Ok;
    }
    bool Ok = true;
    for (const Stmt *Child : S->children())
      Ok &= visit(Child);
    return Ok;
  }

private:
  bool refuse(diag::Kind Kind, const Expr *At, diag::Kind Note,
              std::string Arg = "", std::string NoteArg = "") {
    {
      DiagnosticBuilder Builder = Diags.report(Kind, At->getBeginLoc());
      Builder << At->getSourceRange();
      if (!Arg.empty())
        Builder << Arg;
    }
    DiagnosticBuilder Builder = Diags.report(Note, At->getBeginLoc());
    if (!NoteArg.empty())
      Builder << NoteArg;
    return false;
  }

  bool batched(const Expr *E) const { return Plan.Analysis.isBatched(E); }

  bool set(const CallExpr *Call, Lowering How) {
    if (How != Lowering::AsWritten)
      Plan.Calls[Call] = How;
    ++Plan.NumOps;
    return true;
  }

  /// Positions of \p Args that the op table says must be loop-invariant.
  bool checkArgKinds(const CallExpr *Call, StringRef Name, rules::OpForm Form,
                     llvm::ArrayRef<const Expr *> Args) {
    for (unsigned Position = 0; Position < Args.size(); ++Position) {
      if (!batched(Args[Position]))
        continue;
      bool Allowed = false;
      const char *Kind = nullptr;
      for (const rules::OpEntry &Entry : rules::kOpTable) {
        if (Entry.name != std::string_view(Name) || Entry.form != Form ||
            Args.size() < Entry.required || Args.size() > Entry.arity)
          continue;
        const char *EntryKind = invariantKindName(Entry.param(Position));
        Allowed |= !EntryKind;
        Kind = Kind ? Kind : EntryKind;
      }
      // A member's object is Args[0]: count the arguments in the parentheses.
      const unsigned Written =
          Form == rules::OpForm::free_function ? Position + 1 : Position;
      if (Kind && !Allowed)
        return refuse(diag::refuse_batched_context, Args[Position],
                      diag::note_batched_context,
                      "argument " + std::to_string(Written) + " of '" +
                          Name.str() + "' (" + Kind + ")");
    }
    return true;
  }

  /// Whether one_hot's num_classes is written and not the constant -1 (which
  /// infers it from each example's largest label: results of other sizes).
  bool classCountGiven(llvm::ArrayRef<const Expr *> Args) const {
    if (Args.size() < 2 || isa<CXXDefaultArgExpr>(Args[1]))
      return false;
    Expr::EvalResult Count;
    return !Args[1]->EvaluateAsInt(Count, Context) ||
           Count.Val.getInt().getExtValue() >= 0;
  }

  /// vb:: (the batched layer) takes at most the arguments the op table lists
  /// (vmap_op_table_overloads checks it has each): a call with more
  /// (`full_like(x, v, kInt32)` before vb:: took options) would print a vb::
  /// call that does not exist. Fewer are the runtime's defaults, which vb::
  /// has too.
  bool overloadListed(const CallExpr *Call, StringRef Name, rules::OpForm Form,
                      llvm::ArrayRef<const Expr *> Args) {
    unsigned Written = llvm::count_if(
        Args, [](const Expr *Arg) { return !isa<CXXDefaultArgExpr>(Arg); });
    if (llvm::any_of(rules::kOpTable, [&](const rules::OpEntry &Entry) {
          return Entry.name == std::string_view(Name) && Entry.form == Form &&
                 Written <= Entry.arity;
        }))
      return true;
    // A member's object is Args[0]: count the arguments in the parentheses.
    unsigned InParentheses =
        Form == rules::OpForm::free_function ? Written : Written - 1;
    return refuse(diag::refuse_unsupported, Call, diag::note_unsupported,
                  "'" + Name.str() + "' with " + std::to_string(InParentheses) +
                      (InParentheses == 1 ? " argument" : " arguments"));
  }

  bool lowerFallback(const CallExpr *Call, const FunctionDecl *Callee) {
    bool TensorSignature = isTensorType(Callee->getReturnType());
    for (const ParmVarDecl *Param : Callee->parameters()) {
      QualType T = Param->getType();
      bool ByValueOrConst = !T->isReferenceType() ||
                            T.getNonReferenceType().isConstQualified();
      TensorSignature &= ByValueOrConst;
    }
    for (const Expr *Arg : Call->arguments())
      if (batched(Arg) && !isTensorType(Arg->getType()))
        TensorSignature = false;
    if (!TensorSignature || Callee->isVariadic())
      return refuse(diag::refuse_call, Call, diag::note_side_effects,
                    "'" + Callee->getNameAsString() + "'");
    Plan.FallbackOps.push_back(Callee->getNameAsString());
    Diags.report(diag::warn_per_example_fallback, Call->getBeginLoc(),
                 {Call->getSourceRange()},
                 "'" + Callee->getNameAsString() + "'");
    return set(Call, Lowering::PerExample);
  }

  /// Why the function of this file that \p Call calls cannot be batched as a
  /// clone, or std::nullopt when it can. A function template's specialization
  /// is cloned with its template parameters bound as aliases (emit.cpp), which
  /// needs type and integer parameters, and every argument spelled at the call
  /// (a default argument's text may name the template parameters).
  std::optional<std::string> whyNoClone(const CallExpr *Call,
                                        const FunctionDecl *Definition) const {
    // A member function is cloned as a member beside it (emit.cpp), so it
    // must be defined in its class, whose other members see it wherever they
    // are (the class is complete in their bodies).
    if (lambdaVariable(Definition))
      return whyNoLambdaClone(Call, Definition);
    bool InClassMember = false;
    if (const auto *Method = dyn_cast<CXXMethodDecl>(Definition)) {
      if (Method->isOutOfLine())
        return "it is a member function defined outside its class";
      if (Method->isVirtual() || isa<CXXConstructorDecl>(Method) ||
          isa<CXXDestructorDecl>(Method) || isa<CXXConversionDecl>(Method) ||
          Method->isOverloadedOperator() ||
          Method->getRefQualifier() != RQ_None || Method->isVolatile())
        return "it is a virtual, special or operator member function";
      const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
      if (Member && batched(Member->getImplicitObjectArgument()))
        return "its object differs per example";
      InClassMember = true;
    }
    if (Definition->isVariadic())
      return "it is variadic";
    // Defined after the loop, a function declared before it gets its clone
    // declared beside that declaration (emit.cpp).
    const SourceManager &SM = Context.getSourceManager();
    const FunctionDecl *First = Definition->getFirstDecl();
    bool DeclaredBefore =
        First != Definition && !Definition->isTemplateInstantiation() &&
        First->getLexicalDeclContext()->isFileContext() &&
        isInRewrittenFile(SM, First->getLocation()) &&
        SM.isBeforeInTranslationUnit(First->getEndLoc(), Call->getBeginLoc());
    if (!InClassMember && !DeclaredBefore &&
        !SM.isBeforeInTranslationUnit(Definition->getEndLoc(),
                                      Call->getBeginLoc()))
      return "it is defined after the loop that calls it, and not declared "
             "before the loop outside any function in this file";
    if (const FunctionTemplateDecl *Template = Definition->getPrimaryTemplate()) {
      for (const NamedDecl *Param : *Template->getTemplateParameters())
        if (Param->isParameterPack() || isa<TemplateTemplateParmDecl>(Param) ||
            Param->getName().empty())
          return "its template has a parameter pack, a template template "
                 "parameter or an unnamed parameter";
      for (const TemplateArgument &Arg :
           Definition->getTemplateSpecializationArgs()->asArray())
        if (Arg.getKind() != TemplateArgument::Type &&
            Arg.getKind() != TemplateArgument::Integral)
          return "a template argument is neither a type nor an integer";
      if (llvm::any_of(Call->arguments(), [](const Expr *Arg) {
            return isa<CXXDefaultArgExpr>(Arg);
          }))
        return "the call leaves an argument of a function template to its "
               "default; pass it explicitly";
    } else if (Definition->isTemplateInstantiation() && !InClassMember) {
      return "it is a member of a class template";
    }
    return std::nullopt;
  }

  /// Why the lambda whose call operator is \p Definition cannot be cloned
  /// (Note [Lambdas the loop calls] in ast_util.h), or std::nullopt.
  std::optional<std::string>
  whyNoLambdaClone(const CallExpr *Call, const FunctionDecl *Definition) const {
    const auto *Method = cast<CXXMethodDecl>(Definition);
    const LambdaExpr *Lambda = lambdaOf(Definition);
    const auto *Object =
        dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts());
    if (Plan.Analysis.Callee)
      return "it is called from '" + functionName(Plan.Analysis.Callee) +
             "', which the loop calls; call it in the loop itself";
    const VarDecl *Variable = lambdaVariable(Definition);
    if (!Object || Object->getDecl() != Variable)
      return "it is not called through the variable it is stored in";
    // From a lambda holding the loop, through lambdas that capture by
    // default, so that they capture the clone too.
    for (const DeclContext *Around = Plan.Analysis.Loop->Function;
         Around != Variable->getDeclContext();) {
      const auto *Holder = dyn_cast_or_null<CXXMethodDecl>(Around);
      if (!Holder || !Holder->getParent()->isLambda() ||
          Holder->getParent()->getLambdaCaptureDefault() == LCD_None)
        return "the lambda holding the loop captures it by name; capture by "
               "default ('[&]' or '[=]'), which captures its batched copy too";
      Around = Holder->getParent()->getDeclContext();
    }
    if (!Method->isConst())
      return "it is a mutable lambda, whose calls may change what it holds";
    if (const FunctionTemplateDecl *Template = Method->getPrimaryTemplate())
      if (llvm::any_of(*Template->getTemplateParameters(),
                       [](const NamedDecl *Param) { return !Param->isImplicit(); }))
        return "it is a lambda with a template parameter list";
    const Stmt *LoopBody = Plan.Analysis.Loop->For->getBody();
    for (const LambdaCapture &Capture : Lambda->captures()) {
      if (Capture.capturesVLAType())
        return "it captures a variable-length array";
      if (!Capture.capturesVariable())
        continue;
      const auto *Captured = dyn_cast<VarDecl>(Capture.getCapturedVar());
      if (!Captured || Captured->isInitCapture())
        return "it has an init-capture ('[name = ...]'), which its batched "
               "copy would evaluate again";
      if (writesThrough(LoopBody, Captured))
        return "it captures '" + Captured->getNameAsString() +
               "', which the loop writes";
    }
    return std::nullopt;
  }

  /// A variable of each example's own: declared in the vmap loop, or in the
  /// function whose clone this is (a by-value parameter too).
  bool isLocalOfExample(const VarDecl *Var) const {
    const SourceManager &SM = Context.getSourceManager();
    const Stmt *Scope = Plan.Analysis.Callee ? Plan.Analysis.Callee->getBody()
                                             : Plan.Analysis.Loop->For;
    if (Plan.Analysis.Callee && isa<ParmVarDecl>(Var))
      return !Var->getType()->isReferenceType() &&
             Var->getDeclContext() == Plan.Analysis.Callee;
    return SM.isPointWithin(Var->getLocation(), Scope->getBeginLoc(),
                            Scope->getEndLoc());
  }

  /// Whether \p Body assigns, increments or changes in place \p Var or an
  /// element of it (`p = e`, `p += e`, `p[0] = e`, `p.add_(e)`).
  static bool writesThrough(const Stmt *Body, const VarDecl *Var) {
    if (!Body)
      return false;
    auto Root = [](const Expr *E) {
      // Through subscripts and view members to the variable they start from.
      for (E = stripImplicit(E); E; E = stripImplicit(E)) {
        if (const VarDecl *Var = referencedVar(E))
          return Var;
        if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E);
            Operator && Operator->getOperator() == OO_Subscript)
          E = Operator->getArg(0);
        else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
          E = Member->getImplicitObjectArgument();
        else
          return static_cast<const VarDecl *>(nullptr);
      }
      return static_cast<const VarDecl *>(nullptr);
    };
    const Expr *Target = nullptr;
    if (const auto *Binary = dyn_cast<BinaryOperator>(Body);
        Binary && Binary->isAssignmentOp())
      Target = Binary->getLHS();
    if (const auto *Unary = dyn_cast<UnaryOperator>(Body);
        Unary && Unary->isIncrementDecrementOp())
      Target = Unary->getSubExpr();
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Body);
        Operator && Operator->isAssignmentOp())
      Target = Operator->getArg(0);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Body);
        Member && Member->getMethodDecl() &&
        rules::writes_object(Member->getMethodDecl()->getNameAsString()))
      Target = Member->getImplicitObjectArgument();
    if (Target && Root(Target) == Var)
      return true;
    return llvm::any_of(Body->children(), [&](const Stmt *Child) {
      return writesThrough(Child, Var);
    });
  }

  /// A call of a function defined in this file: batch its body as a clone.
  bool lowerClone(const CallExpr *Call, const FunctionDecl *Definition) {
    // The functions whose clones are being made (clones of clones): one met
    // again is recursive, which is refused (a clone's depth is fixed).
    static llvm::SmallVector<const FunctionDecl *, 8> Cloning;
    llvm::SmallVector<bool, 4> BatchedParams;
    llvm::ArrayRef<const Expr *> Args = parameterArguments(Call);
    for (unsigned I = 0; I < Definition->getNumParams(); ++I) {
      bool Batched = I < Args.size() && batched(Args[I]);
      const ParmVarDecl *Param = Definition->getParamDecl(I);
      QualType T = Param->getType();
      const VarDecl *Local = I < Args.size() ? referencedVar(Args[I]) : nullptr;
      if (T->isReferenceType() && !T.getNonReferenceType().isConstQualified() &&
          Local && isLocalOfExample(Local) &&
          writesThrough(Definition->getBody(), Param))
        return refuse(diag::refuse_call, Call, diag::note_no_clone,
                      "'" + functionName(Definition) + "'",
                      "it writes through its reference parameter '" +
                          Param->getNameAsString() + "', bound here to '" +
                          Local->getNameAsString() +
                          "', a local of each example; return the new value "
                          "and assign it instead");
      if (Batched && T->isReferenceType() &&
          !T.getNonReferenceType().isConstQualified())
        return refuse(diag::refuse_batched_context, Args[I],
                      diag::note_batched_context,
                      "a non-const reference argument");
      BatchedParams.push_back(Batched);
    }
    std::string Callee = "'" + functionName(Definition) + "'";
    if (!isInRewrittenFile(Context.getSourceManager(),
                           Definition->getLocation()))
      return refuse(diag::refuse_call, Call, diag::note_side_effects, Callee);
    // Recursion first: the recursive call lies inside the definition, which
    // whyNoClone would call "defined after the loop".
    std::optional<std::string> Why;
    if (llvm::is_contained(Cloning, Definition->getCanonicalDecl()))
      Why = "it calls itself" +
            std::string(Cloning.back() == Definition->getCanonicalDecl()
                            ? ""
                            : " through '" + Cloning.back()->getNameAsString() + "'") +
            ", and a recursive function has no batched form";
    else if (Cloning.size() > 8)
      Why = "calls of functions of this file nest more than 8 deep";
    else
      Why = whyNoClone(Call, Definition);
    if (Why)
      return refuse(diag::refuse_call, Call, diag::note_no_clone, Callee, *Why);
    Cloning.push_back(Definition->getCanonicalDecl());
    std::optional<LoopAnalysis> Analysis = analyseCallee(
        Context, Definition, BatchedParams, Plan.Analysis.Random, Diags);
    std::optional<BatchPlan> Clone;
    if (Analysis)
      Clone = batch(std::move(*Analysis), Diags);
    Cloning.pop_back();
    if (!Clone) {
      Diags.report(diag::note_called_from_loop, Call->getBeginLoc(),
                   {Call->getSourceRange()}, Callee);
      return false;
    }
    Plan.Clones.push_back(std::make_unique<BatchPlan>(std::move(*Clone)));
    Plan.CloneOf[Call] = Plan.Clones.back().get();
    return set(Call, Lowering::Clone);
  }

  /// A call of a function with a user's batching rule, \p Batched: each
  /// per-example argument goes to a Tensor parameter of it.
  bool lowerUserRule(const CallExpr *Call, const FunctionDecl *Callee,
                     const FunctionDecl *Batched) {
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      QualType Type = Batched->getParamDecl(I)->getType();
      if (!batched(Call->getArg(I)) || isTensorType(Type))
        continue;
      const ParmVarDecl *Param = Callee->getParamDecl(I);
      std::string ParamName = Param->getName().empty()
                                  ? "#" + std::to_string(I + 1)
                                  : Param->getNameAsString();
      std::string BatchedName = "'" + Batched->getNameAsString() + "'";
      const Expr *Arg = Call->getArg(I);
      Diags.report(diag::refuse_user_rule_argument, Arg->getBeginLoc())
          << Arg->getSourceRange() << ParamName
          << ("'" + Callee->getNameAsString() + "'") << BatchedName
          << ("'" + Type.getAsString() + "'");
      Diags.report(diag::note_user_rule_argument, Arg->getBeginLoc())
          << BatchedName;
      return false;
    }
    Plan.UserRules[Call] = Batched;
    return set(Call, Lowering::UserRule);
  }

  /// A vmap op (table \p Entry, or kNoOp) done with before its rule: refused
  /// ops, calls with no per-example argument, and ops with no rule (run per
  /// example). std::nullopt when the op's rule lowers it.
  std::optional<bool> lowerWithoutRule(const CallExpr *Call,
                                       const FunctionDecl *Callee,
                                       const std::string &Name,
                                       std::size_t Entry, bool AnyBatched) {
    if (Entry != rules::kNoOp &&
        rules::kOpTable[Entry].family == rules::Family::refused)
      return refuse(diag::refuse_call, Call, diag::note_side_effects,
                    "'" + Name + "'");
    if (!AnyBatched)
      return true;
    if (Entry == rules::kNoOp)
      return lowerFallback(Call, Callee);
    return std::nullopt;
  }

  /// A random draw (Note [Randomness] in vmap/batched.hpp): refused without
  /// the pragma's clause. With randomness(different) it is vb::'s, which draws
  /// for every example; with randomness(same) a draw of no per-example
  /// argument stays as written (made once, shared), one of a per-example
  /// argument (`rand_like(x[i])`) is vb::'s, which draws one sample.
  bool lowerRandomDraw(const CallExpr *Call, const std::string &Name) {
    if (Plan.Analysis.Random == Randomness::Refused)
      return refuse(diag::refuse_random, Call, diag::note_randomness_clause,
                    "'" + Name + "'");
    llvm::SmallVector<const Expr *, 4> Args(Call->arguments());
    if (!overloadListed(Call, Name, rules::OpForm::free_function, Args) ||
        !checkArgKinds(Call, Name, rules::OpForm::free_function, Args))
      return false;
    if (!batched(Call))
      return true;
    return set(Call, Lowering::Qualified);
  }

  bool lower(const CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return refuse(diag::refuse_call, Call, diag::note_side_effects,
                    "'" +
                        sourceText(Context, Call->getCallee()->getSourceRange())
                            .str() +
                        "'");
    std::string Name = calleeName(Call);
    bool InVmap = isInVmapNamespace(Callee);
    if (isRandomDraw(Call))
      return lowerRandomDraw(Call, Name);
    if ((InVmap && isRandomFactory(Name)) || Name == "rand" ||
        Name == "srand" || Name == "random")
      return refuse(diag::refuse_random, Call, diag::note_random,
                    "'" + Name + "'");
    if (isIoFunction(Name) && !InVmap)
      return refuse(diag::refuse_io, Call, diag::note_side_effects,
                    "'" + Name + "'");

    llvm::SmallVector<const Expr *, 4> Args;
    const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
    if (Member)
      Args.push_back(Member->getImplicitObjectArgument());
    for (const Expr *Arg : Call->arguments())
      Args.push_back(Arg);
    bool AnyBatched = llvm::any_of(Args, [&](const Expr *A) { return batched(A); });

    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Operator->getNumArgs() > 0 &&
          isStreamType(Operator->getArg(0)->getType()))
        return refuse(diag::refuse_io, Call, diag::note_side_effects,
                      "'" + Name + "'");
      // A lambda or another function object of the user's (`f(x[i])`).
      if (Operator->getOperator() == OO_Call && !InVmap &&
          !Context.getSourceManager().isInSystemHeader(Callee->getLocation())) {
        const FunctionDecl *Definition = nullptr;
        if (!AnyBatched && isPure(Callee))
          return true;
        if (AnyBatched && lambdaVariable(Callee) &&
            Callee->hasBody(Definition) && Definition)
          return lowerClone(Call, Definition);
        const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
        if (AnyBatched && Method && Method->getParent()->isLambda())
          return refuse(diag::refuse_call, Call, diag::note_no_clone,
                        "'" + sourceText(Context, Call->getArg(0)->getSourceRange()).str() + "'",
                        "it is a lambda not stored in a variable declared on "
                        "its own in a block ('auto f = [...](...) { ... };')");
        return refuse(diag::refuse_call, Call, diag::note_side_effects,
                      "'" + functionName(Callee) + "'");
      }
      if (!AnyBatched)
        return true;
      if (!InVmap)
        return refuse(diag::refuse_call, Call, diag::note_side_effects,
                      "'" + Name + "'");
      if (Operator->getOperator() == OO_Subscript && Args.size() == 2)
        return set(Call, batched(Args[0]) ? Lowering::AsWritten : Lowering::At);
      return set(Call, Lowering::AsWritten);
    }

    if (!Member && !InVmap && AnyBatched)
      if (const FunctionDecl *Batched = userBatchingRule(Callee))
        return lowerUserRule(Call, Callee, Batched);

    if (Member) {
      const CXXMethodDecl *Method = Member->getMethodDecl();
      if (!InVmap) {
        const FunctionDecl *Definition = nullptr;
        if (AnyBatched && Method && Method->hasBody(Definition) &&
            isInRewrittenFile(Context.getSourceManager(),
                              Definition->getLocation()))
          return lowerClone(Call, Definition);
        if (AnyBatched)
          return refuse(diag::refuse_call, Call, diag::note_side_effects,
                        "'" + Name + "'");
        if (Method && Method->isConst())
          return true;
        return refuse(diag::refuse_call, Call, diag::note_side_effects,
                      "'" + Name + "'");
      }
      std::size_t Entry = rules::find_op(Name, rules::OpForm::member);
      if (Entry == rules::kNoOp)
        Entry = rules::find_op(Name, rules::OpForm::inplace_member);
      if (std::optional<bool> Done =
              lowerWithoutRule(Call, Callee, Name, Entry, AnyBatched))
        return *Done;
      if (!overloadListed(Call, Name, rules::kOpTable[Entry].form, Args) ||
          !checkArgKinds(Call, Name, rules::kOpTable[Entry].form, Args))
        return false;
      if (isMetadataCall(Call))
        return true;
      return set(Call, batched(Args[0]) ? Lowering::AsWritten
                                        : Lowering::MemberAsFree);
    }

    if (InVmap) {
      std::size_t Entry = rules::find_op(Name, rules::OpForm::free_function);
      if (std::optional<bool> Done =
              lowerWithoutRule(Call, Callee, Name, Entry, AnyBatched))
        return *Done;
      if (!overloadListed(Call, Name, rules::OpForm::free_function, Args) ||
          !checkArgKinds(Call, Name, rules::OpForm::free_function, Args))
        return false;
      if (rules::kOpTable[Entry].rule == rules::RuleId::one_hot &&
          batched(Args[0]) && !classCountGiven(Args))
        return refuse(diag::refuse_inferred_shape, Call,
                      diag::note_inferred_shape, "'" + Name + "'",
                      "num_classes");
      if (rules::kOpTable[Entry].rule == rules::RuleId::loop_invariant)
        return refuse(diag::refuse_batched_context, Call,
                      diag::note_batched_context,
                      "an argument of the factory '" + Name + "'");
      return set(Call, Lowering::Qualified);
    }
    if (isCmath(Callee, Call->getNumArgs()))
      return AnyBatched ? set(Call, Lowering::Qualified) : true;
    if (AnyBatched && breaksKernelCompiler(Callee))
      return refuse(diag::refuse_call, Call, diag::note_breaks_kernel_compiler,
                    "'" + Name + "'", "'" + Name + "'");
    if (AnyBatched && isKernelOnlyFunction(Callee)) {
      Plan.Analysis.KernelOnly[Call] = {true, "'" + Name + "'"};
      return true; // no lowering: a scalar kernel runs it as written
    }
    // std::get<0>(x[i].topk(3)): an element of the batched tuple vb:: returns.
    if (Callee->isInStdNamespace() && Name == "get" && Call->getNumArgs() == 1 &&
        isTensorTupleType(Call->getArg(0)->getType()))
      return AnyBatched ? set(Call, Lowering::AsWritten) : true;
    const FunctionDecl *Definition = nullptr;
    if (AnyBatched && Callee->hasBody(Definition) && Definition)
      return lowerClone(Call, Definition);
    // A helper that draws, called with no per-example argument, runs once for
    // every example: right for randomness(same), not for (different).
    if (!AnyBatched && Plan.Analysis.Random != Randomness::Refused &&
        Callee->hasBody(Definition) && drawsRandom(Definition->getBody())) {
      if (Plan.Analysis.Random == Randomness::Same)
        return true;
      return refuse(diag::refuse_call, Call, diag::note_no_clone,
                    "'" + Name + "'",
                    "it draws random numbers but takes no per-example "
                    "argument, so it would draw once for all examples; pass "
                    "it a per-example value, or draw in the loop");
    }
    // A number the compiler computes (`INFINITY`: `__builtin_inff()`).
    if (!AnyBatched && Call->getType()->isArithmeticType() &&
        Call->isCXX11ConstantExpr(Context))
      return true;
    if (isPure(Callee))
      return AnyBatched ? lowerFallback(Call, Callee) : true;
    if (!AnyBatched && isInStd(Callee))
      return true;
    if (!Callee->isDefined() && !isInStd(Callee))
      return refuse(diag::refuse_call, Call, diag::note_external_function,
                    "'" + Name + "'", "'" + Name + "'");
    return refuse(diag::refuse_call, Call, diag::note_side_effects,
                  "'" + Name + "'");
  }

  BatchPlan &Plan;
  ASTContext &Context;
  Diagnostics &Diags;
};

} // namespace

const FunctionDecl *userBatchingRule(const FunctionDecl *F) {
  // The static_assert VMAP_BATCHED expands to calls
  // ::vmap::detail::user_rule_types(&F, &batched). A rule may be in any
  // namespace of the user's; the system headers' are not searched.
  const SourceManager &SM = F->getASTContext().getSourceManager();
  const FunctionDecl *Canonical = F->getCanonicalDecl();
  std::function<const FunctionDecl *(const DeclContext *)> Search =
      [&](const DeclContext *Scope) -> const FunctionDecl * {
    for (const Decl *D : Scope->decls()) {
      if (SM.isInSystemHeader(D->getLocation()))
        continue;
      if (const auto *Namespace = dyn_cast<NamespaceDecl>(D)) {
        if (const FunctionDecl *Found = Search(Namespace))
          return Found;
        continue;
      }
      const auto *Assert = dyn_cast<StaticAssertDecl>(D);
      const auto *Call = Assert ? dyn_cast<CallExpr>(
                                      Assert->getAssertExpr()->IgnoreImplicit())
                                : nullptr;
      const FunctionDecl *Checker = Call ? Call->getDirectCallee() : nullptr;
      if (!Checker || Call->getNumArgs() != 2 ||
          Checker->getQualifiedNameAsString() !=
              "vmap::detail::user_rule_types")
        continue;
      auto Function = [](const Expr *E) -> const FunctionDecl * {
        const auto *Address = dyn_cast<UnaryOperator>(E->IgnoreImplicit());
        const auto *Ref =
            Address ? dyn_cast<DeclRefExpr>(
                          Address->getSubExpr()->IgnoreParenImpCasts())
                    : nullptr;
        return Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr;
      };
      const FunctionDecl *Per = Function(Call->getArg(0));
      if (Per && Per->getCanonicalDecl() == Canonical)
        return Function(Call->getArg(1));
    }
    return nullptr;
  };
  return Search(F->getASTContext().getTranslationUnitDecl());
}

std::optional<BatchPlan> batch(LoopAnalysis Analysis, Diagnostics &Diags) {
  BatchPlan Plan;
  Plan.Analysis = std::move(Analysis);
  Batcher B(Plan, Diags);
  const Stmt *Body = Plan.Analysis.Loop ? Plan.Analysis.Loop->For->getBody()
                                        : Plan.Analysis.Callee->getBody();
  if (!B.visit(Body) || Plan.Analysis.Refused)
    return std::nullopt;
  return Plan;
}

} // namespace clang_vmap
