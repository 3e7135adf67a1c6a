//===- ast_util.cpp - Small AST queries shared by the passes --------------===//

#include "ast_util.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <vmap/rules/op_table.hpp>
#include <cctype>

using namespace clang;

namespace clang_vmap {

const Expr *stripImplicit(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreUnlessSpelledInSource()->IgnoreParens();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const VarDecl *referencedVar(const Expr *E) {
  if (const auto *Ref = dyn_cast_or_null<DeclRefExpr>(stripImplicit(E)))
    return dyn_cast<VarDecl>(Ref->getDecl());
  return nullptr;
}

bool isInVmapNamespace(const Decl *D) {
  for (const DeclContext *Context = D->getDeclContext(); Context;
       Context = Context->getParent()) {
    const auto *Namespace = dyn_cast<NamespaceDecl>(Context);
    if (Namespace && Namespace->getName() == "vmap" &&
        Namespace->getParent()->getRedeclContext()->isTranslationUnit())
      return true;
  }
  return false;
}

bool isTensorType(QualType T) {
  const CXXRecordDecl *Record =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  return Record && Record->getName() == "Tensor" && isInVmapNamespace(Record);
}

bool isTensorTupleType(QualType T) {
  const auto *Tuple = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl());
  if (!Tuple || Tuple->getName() != "tuple" || !Tuple->isInStdNamespace())
    return false;
  const TemplateArgumentList &Args = Tuple->getTemplateArgs();
  if (Args.size() != 1 || Args[0].getKind() != TemplateArgument::Pack ||
      Args[0].pack_size() == 0)
    return false;
  return llvm::all_of(Args[0].pack_elements(),
                      [](const TemplateArgument &Element) {
                        return Element.getKind() == TemplateArgument::Type &&
                               isTensorType(Element.getAsType());
                      });
}

bool isScalarType(QualType T) {
  QualType Canonical = T.getNonReferenceType().getCanonicalType();
  // The batched numbers are at most 64 bits wide: `long double` and `__int128`
  // arithmetic (and the half-precision types') would be done in another
  // precision than C++ does it. An enum converts to its own type, which the
  // batched code has not (it is refused rather than printed as an integer).
  if (const auto *Builtin = Canonical->getAs<BuiltinType>())
    switch (Builtin->getKind()) {
    case BuiltinType::LongDouble:
    case BuiltinType::Float128:
    case BuiltinType::Ibm128:
    case BuiltinType::Int128:
    case BuiltinType::UInt128:
    case BuiltinType::Half:
    case BuiltinType::Float16:
    case BuiltinType::BFloat16:
      return false;
    default:
      break;
    }
  return Canonical->isArithmeticType() && !Canonical->isAnyCharacterType() &&
         !Canonical->isEnumeralType();
}

bool isUnsigned64(const ASTContext &Context, QualType T) {
  QualType Canonical = T.getNonReferenceType().getCanonicalType();
  return Canonical->isUnsignedIntegerType() && !Canonical->isBooleanType() &&
         Context.getTypeSize(Canonical) == 64;
}

bool isNarrowSigned(const ASTContext &Context, QualType T) {
  QualType Canonical = T.getNonReferenceType().getCanonicalType();
  return Canonical->isSignedIntegerType() &&
         Context.getTypeSize(Canonical) < Context.getTypeSize(Context.IntTy);
}

bool dividesNamedSize(const CompoundAssignOperator *Compound,
                      const ASTContext &Context) {
  BinaryOperatorKind Op = Compound->getOpcode();
  return (Op == BO_DivAssign || Op == BO_RemAssign) &&
         isa<DeclRefExpr>(Compound->getLHS()->IgnoreParens()) &&
         isUnsigned64(Context, Compound->getLHS()->getType()) &&
         isUnsigned64(Context, Compound->getComputationResultType());
}

std::string calleeName(const CallExpr *Call) {
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call))
    return std::string("operator") +
           getOperatorSpelling(Operator->getOperator());
  if (const FunctionDecl *Callee = Call->getDirectCallee())
    return Callee->getNameAsString();
  return "";
}

StringRef sourceText(const ASTContext &Context, SourceRange Range) {
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Chars = CharSourceRange::getTokenRange(Range);
  if (Range.getBegin().isMacroID() || Range.getEnd().isMacroID())
    Chars = SM.getExpansionRange(Range);
  return Lexer::getSourceText(Chars, SM, Context.getLangOpts());
}

unsigned lineOf(const ASTContext &Context, SourceLocation Loc) {
  const SourceManager &SM = Context.getSourceManager();
  return SM.getExpansionLineNumber(Loc);
}

std::string describeStmt(const Stmt *S) {
  switch (S->getStmtClass()) {
  case Stmt::WhileStmtClass: return "a 'while' loop";
  case Stmt::DoStmtClass: return "a 'do' loop";
  case Stmt::CXXForRangeStmtClass: return "a range-based 'for' loop";
  case Stmt::SwitchStmtClass: return "a 'switch'";
  case Stmt::CXXTryStmtClass: return "a 'try' block";
  case Stmt::LabelStmtClass: return "a label";
  case Stmt::GCCAsmStmtClass: return "inline assembly";
  case Stmt::LambdaExprClass: return "a lambda";
  case Stmt::CXXNewExprClass: return "'new'";
  case Stmt::CXXDeleteExprClass: return "'delete'";
  case Stmt::CXXThrowExprClass: return "'throw'";
  case Stmt::StmtExprClass: return "a statement expression";
  case Stmt::CoawaitExprClass: return "'co_await'";
  case Stmt::CoyieldExprClass: return "'co_yield'";
  default: return std::string("'") + S->getStmtClassName() + "'";
  }
}

std::string qualifiedTypeName(QualType T, const ASTContext &Context) {
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressTagKeyword = true;
  return TypeName::getFullyQualifiedName(T, Context, Policy);
}

llvm::SmallVector<std::string, 4>
templateArgumentTexts(const FunctionDecl *F) {
  llvm::SmallVector<std::string, 4> Texts;
  const TemplateArgumentList *Args = F->getTemplateSpecializationArgs();
  if (!Args)
    return Texts;
  const ASTContext &Context = F->getASTContext();
  for (const TemplateArgument &Arg : Args->asArray()) {
    if (Arg.getKind() == TemplateArgument::Type) {
      Texts.push_back(qualifiedTypeName(Arg.getAsType(), Context));
    } else {
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      Arg.print(Context.getPrintingPolicy(), OS, /*IncludeType=*/false);
      Texts.push_back(std::move(Text));
    }
  }
  return Texts;
}

/// Whether another function or function template of \p F's scope has its name
/// (`int h(int)` and `double h(double)`), whose clones need names of their own.
static bool isOverloaded(const FunctionDecl *F) {
  const FunctionDecl *Declared = F;
  if (const FunctionTemplateDecl *Primary = F->getPrimaryTemplate())
    Declared = Primary->getTemplatedDecl();
  unsigned Functions = 0;
  for (const NamedDecl *Found :
       Declared->getDeclContext()->getRedeclContext()->lookup(
           F->getDeclName()))
    if (isa<FunctionDecl, FunctionTemplateDecl>(Found->getUnderlyingDecl()))
      ++Functions;
  return Functions > 1;
}

/// The local variable of \p Body initialised with \p Lambda's expression,
/// declared on its own in a statement of a block (its clone goes after that
/// statement; not in an `if`'s or a `for`'s parentheses, nor beside another).
static const VarDecl *variableOfLambda(const Stmt *Body,
                                       const CXXRecordDecl *Lambda) {
  if (!Body)
    return nullptr;
  if (const auto *Block = dyn_cast<CompoundStmt>(Body))
    for (const Stmt *S : Block->body())
      if (const auto *Declaration = dyn_cast<DeclStmt>(S);
          Declaration && Declaration->isSingleDecl())
        if (const auto *Var = dyn_cast<VarDecl>(Declaration->getSingleDecl());
            Var && Var->getInit() && Var->isLocalVarDecl() &&
            !Var->getType()->isReferenceType())
          if (const auto *Init = dyn_cast<LambdaExpr>(
                  Var->getInit()->IgnoreImplicit()->IgnoreParens());
              Init && Init->getLambdaClass() == Lambda)
            return Var;
  for (const Stmt *Child : Body->children())
    if (const VarDecl *Found = variableOfLambda(Child, Lambda))
      return Found;
  return nullptr;
}

const VarDecl *lambdaVariable(const FunctionDecl *F) {
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(F);
  if (!Method || !Method->getParent()->isLambda() ||
      Method->getOverloadedOperator() != OO_Call)
    return nullptr;
  const auto *Around =
      dyn_cast<FunctionDecl>(Method->getParent()->getDeclContext());
  return Around ? variableOfLambda(Around->getBody(), Method->getParent())
                : nullptr;
}

const LambdaExpr *lambdaOf(const FunctionDecl *F) {
  const VarDecl *Var = lambdaVariable(F);
  return Var ? cast<LambdaExpr>(Var->getInit()->IgnoreImplicit()->IgnoreParens())
             : nullptr;
}

std::string functionName(const FunctionDecl *F) {
  if (const VarDecl *Var = lambdaVariable(F))
    return Var->getNameAsString();
  return F->getNameAsString();
}

llvm::ArrayRef<const Expr *> parameterArguments(const CallExpr *Call) {
  llvm::ArrayRef<const Expr *> Args(Call->getArgs(), Call->getNumArgs());
  if (isa<CXXOperatorCallExpr>(Call) &&
      isa_and_nonnull<CXXMethodDecl>(Call->getDirectCallee()) && !Args.empty())
    return Args.drop_front();
  return Args;
}

std::string cloneName(const FunctionDecl *F) {
  std::string Name = "_b_" + functionName(F);
  auto Append = [&](StringRef Text) {
    Name += '_';
    for (char C : Text) // `vmap::Tensor` -> `vmap_Tensor`, `-1` -> `neg1`
      if (std::isalnum(static_cast<unsigned char>(C)))
        Name += C;
      else if (C == '-')
        Name += "neg";
      else if (Name.back() != '_')
        Name += '_';
  };
  for (const std::string &Arg : templateArgumentTexts(F))
    Append(Arg);
  // Overloads are told apart by their parameter types (`_b_h_int`,
  // `_b_h_double`).
  if (isOverloaded(F))
    for (const ParmVarDecl *Param : F->parameters())
      Append(Param->getType()
                 .getNonReferenceType()
                 .getUnqualifiedType()
                 .getCanonicalType()
                 .getAsString(F->getASTContext().getPrintingPolicy()));
  // A user's own `_b_f` keeps its name (Note [Generated names]).
  const IdentifierTable &Idents = F->getASTContext().Idents;
  std::string Base = Name;
  for (unsigned Suffix = 1; Idents.find(Name) != Idents.end(); ++Suffix)
    Name = Base + "_" + std::to_string(Suffix);
  return Name;
}

namespace {
struct RewrittenFile {
  std::string Header; ///< "" for the main file
  std::vector<std::string> Elsewhere;
  /// The header's FileID in the unit of CachedFor (one parse at a time; a
  /// later unit's SourceManager may have the same address: checked again).
  const SourceManager *CachedFor = nullptr;
  FileID CachedHeader;
};
RewrittenFile &rewrittenFileSetting() {
  static RewrittenFile Setting;
  return Setting;
}

bool isFile(const SourceManager &SM, FileID ID, llvm::StringRef AbsolutePath) {
  OptionalFileEntryRef Wanted =
      SM.getFileManager().getOptionalFileRef(AbsolutePath);
  OptionalFileEntryRef Entry = SM.getFileEntryRefForID(ID);
  return Wanted && Entry && *Wanted == *Entry;
}
} // namespace

void setRewrittenFile(std::string Header, std::vector<std::string> Elsewhere) {
  RewrittenFile &Setting = rewrittenFileSetting();
  Setting.Header = std::move(Header);
  Setting.Elsewhere = std::move(Elsewhere);
  Setting.CachedFor = nullptr;
}

FileID rewrittenFileID(const SourceManager &SM) {
  RewrittenFile &Setting = rewrittenFileSetting();
  if (Setting.Header.empty())
    return SM.getMainFileID();
  if (Setting.CachedFor != &SM ||
      !isFile(SM, Setting.CachedHeader, Setting.Header)) {
    Setting.CachedFor = &SM;
    Setting.CachedHeader = FileID();
    // A header with an include guard or #pragma once is entered once.
    if (OptionalFileEntryRef Header =
            SM.getFileManager().getOptionalFileRef(Setting.Header))
      Setting.CachedHeader = SM.translateFile(*Header);
  }
  return Setting.CachedHeader;
}

bool isInRewrittenFile(const SourceManager &SM, SourceLocation Loc) {
  if (Loc.isInvalid())
    return false;
  FileID Rewritten = rewrittenFileID(SM);
  return Rewritten.isValid() &&
         SM.getFileID(SM.getExpansionLoc(Loc)) == Rewritten;
}

bool isRewrittenElsewhere(const SourceManager &SM, SourceLocation Loc) {
  const RewrittenFile &Setting = rewrittenFileSetting();
  if (!Setting.Header.empty())
    return !isInRewrittenFile(SM, Loc);
  FileID File = SM.getFileID(SM.getExpansionLoc(Loc));
  return llvm::any_of(Setting.Elsewhere, [&](const std::string &Header) {
    return isFile(SM, File, Header);
  });
}

std::string lineDirective(const ASTContext &Context, unsigned Line) {
  const SourceManager &SM = Context.getSourceManager();
  llvm::SmallString<256> Path;
  if (OptionalFileEntryRef File = SM.getFileEntryRefForID(rewrittenFileID(SM)))
    Path = File->getName();
  llvm::sys::fs::make_absolute(Path);
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return "#line " + std::to_string(Line) + " " + stringLiteral(Path);
}

std::string stringLiteral(StringRef Text) {
  std::string Literal = "\"";
  for (char C : Text) {
    if (C == '\n') {
      Literal += "\\n";
      continue;
    }
    if (C == '\\' || C == '"')
      Literal += '\\';
    Literal += C;
  }
  return Literal + "\"";
}

std::string lineDirectiveAfter(const ASTContext &Context, SourceLocation End) {
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation FileEnd = SM.getExpansionLoc(End);
  auto [File, Offset] = SM.getDecomposedLoc(FileEnd);
  StringRef Rest = SM.getBufferData(File).substr(Offset);
  Rest = Rest.take_until([](char C) { return C == '\n'; }).trim();
  unsigned Line = SM.getExpansionLineNumber(FileEnd);
  if (Rest.empty() || Rest.starts_with("//"))
    return "\n" + lineDirective(Context, Line + 1);
  return "\n" + lineDirective(Context, Line) + "\n";
}

// Note [Generated names]
// Rewritten code declares names of its own in the user's function: the alias
// `vb` of the batched API, `_b_level0`, `_b_where0`, `_b_args`. Each is the
// fixed name (so goldens stay stable) unless the function already spells or
// refers to it, in which case a suffix makes it fresh: a user's `vb` or
// `_b_level0`, local or global, is then neither hidden nor redeclared. The
// alias names `::vmap::batched`, which no user `vmap` or `batched` can hide.
namespace {
class NameCollector : public RecursiveASTVisitor<NameCollector> {
public:
  explicit NameCollector(llvm::StringSet<> &Names) : Names(Names) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }
  bool VisitNamedDecl(NamedDecl *D) { return add(D); }
  bool VisitDeclRefExpr(DeclRefExpr *E) { return add(E->getDecl()); }
  bool VisitMemberExpr(MemberExpr *E) { return add(E->getMemberDecl()); }

private:
  bool add(const NamedDecl *D) {
    if (D && D->getDeclName().isIdentifier())
      Names.insert(D->getName());
    return true;
  }
  llvm::StringSet<> &Names;
};
} // namespace

llvm::StringSet<> namesUsedIn(const FunctionDecl *F) {
  llvm::StringSet<> Names;
  if (!F)
    return Names;
  NameCollector(Names).TraverseDecl(const_cast<FunctionDecl *>(F));
  const ASTContext &Context = F->getASTContext();
  const SourceManager &SM = Context.getSourceManager();
  CharSourceRange Range = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(F->getSourceRange()), SM,
      Context.getLangOpts());
  if (Range.isInvalid())
    return Names;
  // The raw lexer wants a NUL after its buffer: lex a copy.
  std::string Text =
      Lexer::getSourceText(Range, SM, Context.getLangOpts()).str();
  Lexer Raw(Range.getBegin(), Context.getLangOpts(), Text.data(), Text.data(),
            Text.data() + Text.size());
  Token Tok;
  for (bool AtEnd = false; !AtEnd;) {
    AtEnd = Raw.LexFromRawLexer(Tok);
    if (Tok.is(tok::raw_identifier))
      Names.insert(Tok.getRawIdentifier());
  }
  return Names;
}

std::string freshName(llvm::StringRef Base, llvm::StringSet<> &Taken) {
  std::string Name = Base.str();
  for (unsigned Suffix = 1; Taken.contains(Name); ++Suffix)
    Name = (Base + "_" + llvm::Twine(Suffix)).str();
  Taken.insert(Name);
  return Name;
}

bool isArithmeticConversion(const ImplicitCastExpr *Cast,
                            const ASTContext &Context) {
  switch (Cast->getCastKind()) {
  case CK_IntegralToFloating:
  case CK_FloatingToIntegral:
  case CK_FloatingCast:
  case CK_IntegralToBoolean:
  case CK_FloatingToBoolean:
  case CK_BooleanToSignedIntegral:
    return true;
  case CK_IntegralCast: {
    // Widening an integer keeps its value; only narrowing is spelled out, and
    // a signed value made unsigned, or an unsigned one narrower than 64 bits
    // (held as its value) made signed of its width (`int s = u;` of u =
    // 2^32 - 5 is -5); a size_t is held as its int64 bits already (Note
    // [Unsigned per-example integers]).
    uint64_t To = Context.getTypeSize(Cast->getType());
    uint64_t From = Context.getTypeSize(Cast->getSubExpr()->getType());
    return To < From || Cast->getType()->isBooleanType() ||
           (Cast->getType()->isUnsignedIntegerType() &&
            Cast->getSubExpr()->getType()->isSignedIntegerType()) ||
           (To == From && To < 64 && Cast->getType()->isSignedIntegerType() &&
            Cast->getSubExpr()->getType()->isUnsignedIntegerType());
  }
  default:
    return false;
  }
}

bool breaksKernelCompiler(const FunctionDecl *Callee) {
  // GCC 12 stops with an internal compiler error on a kernel's `omp simd`
  // loop over examples that calls std::signbit, in AVX-512 (the kernels' ISA
  // where the machine has it, and any -march=native build).
  return Callee->getIdentifier() && Callee->getName() == "signbit";
}

bool isKernelOnlyFunction(const FunctionDecl *Callee) {
  const SourceManager &SM = Callee->getASTContext().getSourceManager();
  SourceLocation Declared =
      SM.getExpansionLoc(Callee->getCanonicalDecl()->getLocation());
  if (!SM.isInSystemHeader(Declared) || Callee->isVariadic() ||
      Callee->getNumParams() == 0 ||
      isCmath(Callee, Callee->getNumParams()) ||
      !(Callee->isInStdNamespace() ||
        Callee->getDeclContext()->getRedeclContext()->isTranslationUnit()))
    return false;
  StringRef Header = llvm::sys::path::filename(SM.getFilename(Declared));
  if (!Header.contains("math") && !Header.contains("algo"))
    return false;
  if (breaksKernelCompiler(Callee))
    return false;
  const auto IsNumber = [](QualType Type) {
    return (!Type->isReferenceType() ||
            Type.getNonReferenceType().isConstQualified()) &&
           Type.getNonReferenceType()->isArithmeticType() &&
           isScalarType(Type);
  };
  return IsNumber(Callee->getReturnType()) &&
         llvm::all_of(Callee->parameters(), [&](const ParmVarDecl *Param) {
           return IsNumber(Param->getType());
         });
}

bool isCmath(const FunctionDecl *Callee, unsigned NumArgs) {
  // The library's: std's (a user may not add to it), or a global one a
  // system header declares. A function of the user's named like one (a
  // global `float max(float, float)` of their own) means what its body says,
  // and is called as written.
  const bool Library =
      Callee->isInStdNamespace() ||
      (Callee->getDeclContext()->getRedeclContext()->isTranslationUnit() &&
       Callee->getASTContext().getSourceManager().isInSystemHeader(
           Callee->getCanonicalDecl()->getLocation()));
  if (!Library)
    return false;
  std::string Name = Callee->getNameAsString();
  return llvm::any_of(vmap::rules::kCmathFunctions,
                      [&](const vmap::rules::CmathFunction &F) {
                        return F.name == Name && F.arity == NumArgs;
                      });
}

bool isMetadataCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(stripImplicit(E));
  if (!Call || !Call->getMethodDecl() ||
      !isInVmapNamespace(Call->getMethodDecl()))
    return false;
  std::string Name = Call->getMethodDecl()->getNameAsString();
  for (const vmap::rules::OpEntry &Entry : vmap::rules::kOpTable)
    if (Entry.family == vmap::rules::Family::metadata && Entry.name == Name)
      return true;
  return false;
}

bool isRandomDraw(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !isInVmapNamespace(Callee))
    return false;
  std::string Name = Callee->getNameAsString();
  return vmap::rules::is_random_factory(Name) && Name != "manual_seed";
}

bool hasOwnElements(const Expr *E) {
  E = stripImplicit(E);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0; // an undefined Tensor
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !isInVmapNamespace(Callee))
    return false;
  namespace rules = vmap::rules;
  std::string Name = calleeName(Call);
  if (isa<CXXMemberCallExpr>(Call) && Name == "clone")
    return true;
  rules::OpForm Form = rules::OpForm::free_function;
  if (isa<CXXMemberCallExpr>(Call))
    Form = rules::OpForm::member;
  else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call))
    Form = Operator->isAssignmentOp() ? rules::OpForm::compound_assign
           : Operator->getNumArgs() == 1 ? rules::OpForm::unary_operator
                                         : rules::OpForm::binary_operator;
  std::size_t Entry = rules::find_op(Name, Form);
  if (Entry == rules::kNoOp)
    return false;
  const rules::OpEntry &Op = rules::kOpTable[Entry];
  return !Op.returns_view && Op.rule != rules::RuleId::convert &&
         Op.family != rules::Family::inplace &&
         Form != rules::OpForm::compound_assign;
}

} // namespace clang_vmap
