//===- emit_kernel.cpp - Print compiled fused kernels ---------------------===//
//
// The Printer's compiled kernels: a pointwise chain or region as a
// `vb::fused` lambda over its operands (Note [Compiled fusion] in
// rules/include/vmap/fused.hpp), a region of scalar control flow as a
// `vb::fused_scalar` lambda of the user's own code (Note [Fused control flow]
// in fuse.cpp).
//
//===----------------------------------------------------------------------===//

#include "emit_printer.h"
#include "ast_util.h"
#include "llvm/ADT/SetVector.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include <functional>
#include <iterator>
#include <map>

namespace clang_vmap::emit_detail {

/// A chain emitted as a compiled kernel (fuse.h), or inside one, an operand
/// printed as its parameter.
std::optional<std::string> Printer::fused(const Expr *E) {
  if (Kernel) {
    // A store of a slot run: converted to the slot's dtype (Note [Slot runs]
    // in fuse_slot.cpp).
    if (const auto *Store = dyn_cast<CXXOperatorCallExpr>(E);
        Kernel->Slot && Store && Store->getOperator() == OO_Equal &&
        Kernel->Parameters.count(Store->getArg(0)))
      return vb("assign(") + Kernel->Names[0] + ", " + expr(Store->getArg(1)) +
             ")";
    auto Parameter = Kernel->Parameters.find(E);
    if (Parameter == Kernel->Parameters.end())
      return std::nullopt;
    return Kernel->Names[Parameter->second];
  }
  // `(d * d).sum()` prints as `vb::fused(...).sum()`: its parentheses go.
  auto Chain = Plan.Fusion.Chains.find(stripImplicit(E));
  if (Chain == Plan.Fusion.Chains.end())
    return std::nullopt;
  return kernel(Chain->first, Chain->second);
}

// `vb::fused([](const auto& a, const auto& b) { return (a - b).pow(2); },
// vb::at(x, i), vb::at(y, j))`: the chain's own text with its operands as
// the lambda's parameters (Note [Compiled fusion] in rules/include/vmap/fused.hpp).
// A region's statements (Note [Fused regions] in fuse.cpp) are printed in the
// lambda as statements of their own, one level in, the value returned after.
std::string Printer::kernel(const Expr *Root, const FusedChain &Chain) {
  if (Chain.Scalar)
    return scalarKernel(Root, Chain);
  std::string Parameters, Operands;
  for (unsigned I = 0; I < Chain.Operands.size(); ++I) {
    Parameters +=
        std::string(I ? ", " : "") +
        (Chain.Locals[I] || (Chain.Slot && I == 0) ? "auto " : "const auto& ") +
        Chain.Names[I];
    Operands += ", " + expr(Chain.Operands[I]);
  }
  Kernel = &Chain;
  // The kernel's value: a dot's vector (Note [Dot products of a value with
  // itself] in fuse_squares.cpp), else the chain's.
  const Expr *Value = Chain.DotWithItself ? Chain.DotWithItself : Root;
  std::string Body;
  if (Chain.Region.empty()) {
    Body = " return " + expr(Value) + "; ";
  } else {
    unsigned Indent = StatementIndent;
    std::string Outside = std::move(Out);
    Out.clear();
    for (const Stmt *S : Chain.Region) {
      const auto *Declaration = dyn_cast<DeclStmt>(S);
      if (!Declaration || !llvm::is_contained(Chain.Locals,
                                              Declaration->getSingleDecl()))
        stmt(S, Indent + 2);
    }
    // The value and the operands after it: the consumer's line (a slot
    // run's last statement's).
    const Stmt *Last = Root ? Root : Chain.Region.back();
    std::string Directive =
        lineDirective(Context, lineOf(Context, Last->getBeginLoc())) + "\n";
    Out += Directive;
    line(Indent + 2, "return " + (Root ? expr(Value) : Chain.Names[0]) + ";",
         nullptr);
    Body = "\n" + Out + Directive + std::string(Indent, ' ');
    Out = std::move(Outside);
    StatementIndent = Indent;
  }
  Kernel = nullptr;
  std::string Lambda = "[](" + Parameters + ") {" + Body + "}";
  // Note [Fused kernels on a device] in rules/include/vmap/fused.hpp.
  std::string Device = Chain.DeviceCode ? deviceCode(Lambda) : "";
  return vb(Chain.Slot ? "fused_slot(" : "fused(") + Device + Lambda +
         Operands + (Chain.DotWithItself ? ").dot_self()" : ")");
}

// `vb::fused_scalar([](float cr, int max_iter) { ... return k; }, operands)`:
// a scalar region (Note [Fused control flow] in fuse_scalar.cpp) as the user wrote
// it, each statement on its own line, its operands replaced by the parameters
// (a variable's keeps its name), the parameters of the C++ types the code
// reads them as (Note [Scalar kernels] in rules/include/vmap/fused_scalar.hpp).
/// The variables of the lambdas \p S calls, which a scalar kernel captures
/// by reference (`[&squared]`; Note [Lambdas the loop calls] in ast_util.h).
static void calledLambdas(const Stmt *S,
                          llvm::SetVector<const VarDecl *> &Lambdas) {
  if (!S)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(S))
    if (const VarDecl *Var = lambdaVariable(Call->getDirectCallee()))
      Lambdas.insert(Var);
  for (const Stmt *Child : S->children())
    calledLambdas(Child, Lambdas);
}

std::string Printer::scalarKernel(const Expr *Root, const FusedChain &Chain) {
  std::string Parameters, Operands, LaneParameters;
  for (unsigned I = 0; I < Chain.Operands.size(); ++I) {
    const VarDecl *Local = Chain.Locals[I];
    QualType Type = Local ? Local->getType() : Chain.Operands[I]->getType();
    // A variable's type as declared (`int64_t n`), unless deduced or a
    // reference (the parameter is a copy); else the type itself, which every
    // scope can name.
    const VarDecl *Declared = Local ? Local : referencedVar(Chain.Operands[I]);
    std::string Spelled;
    if (Chain.ElementReads[I])
      Spelled = vb(Chain.ElementWrites[I] ? "WritableElements" : "Elements");
    else if (Declared && Declared->getTypeSourceInfo() &&
             !Declared->getType()->isReferenceType() &&
        Context.hasSameUnqualifiedType(Declared->getType().getNonReferenceType(),
                                       Type.getNonReferenceType()))
      Spelled = sourceText(Context, Declared->getTypeSourceInfo()
                                        ->getTypeLoc()
                                        .getSourceRange())
                    .str();
    if (Spelled.empty() || StringRef(Spelled).contains("auto"))
      Spelled = canonicalSpelling(Type);
    Parameters += std::string(I ? ", " : "") + Spelled + " " + Chain.Names[I];
    // A local's braced initialiser (`float s{};`, `= {}`) as a value of its
    // type: `float{}`.
    Operands += ", " +
                (Local && isa<InitListExpr>(Chain.Operands[I]->IgnoreImpCasts())
                     ? canonicalSpelling(Local->getType()) +
                           expr(Chain.Operands[I])
                     : expr(Chain.Operands[I]));
    // The lane form's: a block of examples' values where they differ.
    if (Chain.Lanes)
      LaneParameters +=
          std::string(I ? ", " : "") +
          (Chain.ElementReads[I] ? vb("VaryingElements")
           : Chain.VaryingOperands[I]
               ? vb("Varying<") +
                     (StringRef(Spelled).contains("const")
                          ? canonicalSpelling(Type)
                          : Spelled) +
                     ">"
               : Spelled) +
          " " + Chain.Names[I];
  }
  std::string Indent(StatementIndent + 2, ' ');
  // The device's copy and the lane form have neither line directives nor
  // line comments.
  std::string Body = "\n", DeviceBody = "\n", LaneBody = "\n";
  for (const Stmt *S : Chain.Region) {
    const auto *Declaration = dyn_cast<DeclStmt>(S);
    if (Declaration && Declaration->isSingleDecl() &&
        llvm::is_contained(Chain.Locals, Declaration->getSingleDecl()))
      continue; // a parameter
    // The `;` that ends an expression statement is no part of its range.
    SourceRange Range = S->getSourceRange();
    if (!isa<DeclStmt, CompoundStmt, NullStmt>(S))
      if (std::optional<Token> Next = Lexer::findNextToken(
              Range.getEnd(), SM, Context.getLangOpts()))
        if (Next->is(tok::semi))
          Range.setEnd(Next->getLocation());
    // Its lines after the first keep their indentation relative to it.
    std::string Column(SM.getSpellingColumnNumber(Range.getBegin()) - 1, ' ');
    std::string Text = reindented(asWritten(Range, Chain), Column, Indent);
    DeviceBody += Text + "\n";
    if (Chain.Lanes)
      LaneBody += Indent + reindented(asWritten(Range, Chain, /*Lanes=*/true),
                                      Column, Indent) +
                  "\n";
    unsigned Line = lineOf(Context, S->getBeginLoc());
    Text.insert(std::min(Text.find('\n'), Text.size()),
                "  // line " + std::to_string(Line));
    Body += lineDirective(Context, Line) + "\n" + Indent + Text + "\n";
  }
  // Without Root, a kernel that stores elements and returns nothing: the
  // operands after it are on its last statement's line.
  const Stmt *Last = Root ? Root : Chain.Region.back();
  std::string Directive =
      lineDirective(Context, lineOf(Context, Last->getBeginLoc())) + "\n";
  std::string Result = Root ? asWritten(Root->getSourceRange(), Chain) : "";
  if (Root)
    Body += Directive + Indent + "return " + Result + ";\n";
  Body += Directive + std::string(StatementIndent, ' ');
  // Note [Scalar kernels on a device] in rules/include/vmap/fused_scalar.hpp:
  // the lambda's text, one line of the file.
  std::string Device;
  if (Chain.DeviceCode) {
    DeviceBody += "return " + Result + ";\n";
    std::string Lines = "[](" + Parameters + ") {";
    for (StringRef Line : llvm::split(DeviceBody, '\n'))
      if (!Line.trim().empty())
        Lines += "\n" + Line.trim().str();
    Device = deviceCode(Lines + "\n}");
  }
  // Note [Lane kernels] in rules/include/vmap/fused_scalar.hpp: inlined into the
  // lanes' ISA (a lambda the compiler keeps apart is the user flags' ISA, one lane
  // at a time).
  std::string Lanes;
  if (Chain.Lanes)
    Lanes = ", " + vb("over_lanes([](") + LaneParameters +
            ") __attribute__((always_inline)) {" + LaneBody +
            Indent + "return " +
            asWritten(Root->getSourceRange(), Chain, /*Lanes=*/true) + ";\n" +
            std::string(StatementIndent, ' ') + "})";
  llvm::SetVector<const VarDecl *> Lambdas;
  for (const Stmt *S : Chain.Region)
    calledLambdas(S, Lambdas);
  calledLambdas(Root, Lambdas);
  std::string Captures = "[";
  for (const VarDecl *Var : Lambdas)
    Captures += (Captures.size() > 1 ? ", &" : "&") + Var->getNameAsString();
  Captures += "]";
  // Note [Examples in order] in rules/include/vmap/fused_scalar.hpp.
  const std::string InOrder = Chain.InOrder ? vb("in_order, ") : "";
  return vb("fused_scalar(") + InOrder + Device + Captures + "(" + Parameters +
         ") {" + Body + "}" + Lanes + Operands + ")";
}

/// \p Type as every scope names it: canonical, no reference or qualifier.
std::string Printer::canonicalSpelling(QualType Type) const {
  return Type.getNonReferenceType()
      .getCanonicalType()
      .getUnqualifiedType()
      .getAsString(Context.getPrintingPolicy());
}

/// \p Text, a statement that began at \p Column, its lines after the first
/// keeping their indentation relative to it at \p Indent.
std::string Printer::reindented(std::string Text, const std::string &Column,
                                const std::string &Indent) {
  for (std::size_t At = Text.find('\n'); At != std::string::npos;
       At = Text.find('\n', At + 1))
    if (StringRef(Text).substr(At + 1).starts_with(Column))
      Text.replace(At + 1, Column.size(), Indent);
  return Text;
}

// `[](const auto& v) { return v * v; }(value)`: inside a kernel, a call of a
// function of this file that the kernel computes element by element (Note
// [Helpers in kernels] in fuse_helpers.cpp), its body printed as the kernel's
// own text over the function's parameters, by the printer of its clone.
std::string Printer::inlinedHelper(const CallExpr *Call) {
  const BatchPlan &Clone = *Plan.CloneOf.lookup(Call);
  const FunctionDecl *Definition = nullptr;
  Clone.Analysis.Callee->getBody(Definition);
  // A Tensor parameter takes the kernel's element; a number keeps its type,
  // converting what the call passes as the call does.
  FusedChain Parameters;
  std::string Declared;
  for (const ParmVarDecl *Parameter : Definition->parameters()) {
    QualType Type = Parameter->getType().getNonReferenceType();
    Declared += std::string(Parameters.Names.empty() ? "" : ", ") +
                (isTensorType(Type)
                     ? "const auto&"
                     : Type.getUnqualifiedType().getAsString(
                           Context.getPrintingPolicy())) +
                " " + Parameter->getNameAsString();
    Parameters.Names.push_back(Parameter->getNameAsString());
  }
  const Stmt *Body = Definition->getBody();
  std::function<void(const Stmt *)> Bind = [&](const Stmt *S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
      if (const auto *Parameter = dyn_cast<ParmVarDecl>(Ref->getDecl()))
        Parameters.Parameters[Ref] = Parameter->getFunctionScopeIndex();
    llvm::for_each(S->children(), Bind);
  };
  Bind(Body);
  Printer Inner(Clone, Names);
  Inner.Alias = Alias;
  Inner.Kernel = &Parameters;
  Inner.HelpersInKernels = HelpersInKernels;
  std::string Text;
  for (const Stmt *S : Body->children()) {
    if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
      Text += "return " + Inner.expr(Return->getRetValue()) + "; ";
      continue;
    }
    const auto *Local = cast<VarDecl>(cast<DeclStmt>(S)->getSingleDecl());
    Text += "auto " + Local->getNameAsString() + " = " +
            Inner.expr(Local->getInit()) + "; ";
  }
  if (!Inner.Error.empty())
    return fail(Inner.Error, Inner.ErrorRange);
  llvm::SmallVector<const Expr *, 4> Args(parameterArguments(Call));
  return "[](" + Declared + ") { " + Text + "}(" + args(Args) + ")";
}

/// `vb::DeviceCode{"<Lambda>"}, `: a kernel's text for the device, with the
/// file's name for vmap::batched where it is not `vb`.
std::string Printer::deviceCode(StringRef Lambda) const {
  return vb("DeviceCode{") + stringLiteral(Lambda) +
         (Alias == "vb" ? "" : ", " + stringLiteral(Alias)) + "}, ";
}

/// The source text of \p Range with the operands of \p Chain in it replaced
/// by their parameters.
std::string Printer::asWritten(SourceRange Range, const FusedChain &Chain,
                               bool Lanes) {
  unsigned Begin, End;
  if (!offsets(Range, Begin, End))
    return fail("a fused kernel's code comes from a macro", Range);
  std::vector<Edit> Edits;
  // In the lane form (Note [Lane kernels] in
  // rules/include/vmap/fused_scalar.hpp), a local that differs per example is
  // a vb::Varying of its type, and a <cmath> call on one the lanes' function.
  const auto Inside = [&](SourceRange Part, unsigned &PartBegin,
                          unsigned &PartEnd) {
    return offsets(Part, PartBegin, PartEnd) && PartBegin >= Begin &&
           PartEnd <= End;
  };
  unsigned PartBegin, PartEnd;
  if (Lanes) {
    for (const VarDecl *Local : Chain.VaryingLocals) {
      TypeLoc Declared =
          Local->getTypeSourceInfo()->getTypeLoc().getUnqualifiedLoc();
      if (!Inside(Declared.getSourceRange(), PartBegin, PartEnd))
        continue;
      std::string Spelled = sourceText(Context, Declared.getSourceRange()).str();
      if (StringRef(Spelled).contains("auto"))
        Spelled = canonicalSpelling(Local->getType());
      Edits.push_back({PartBegin, PartEnd, vb("Varying<") + Spelled + ">"});
    }
    for (const CallExpr *Call : Chain.LaneCalls)
      if (Inside(Call->getCallee()->getSourceRange(), PartBegin, PartEnd))
        Edits.push_back({PartBegin, PartEnd,
                         vb(Call->getDirectCallee()->getName().str())});
    // `static_cast<T>(v)`, `(T)v` and `T(v)` become `vb::lane_cast<T>(v)`:
    // the text up to the type's end is replaced, and a C-style cast's operand
    // gets parentheses (one `)` for each cast ending there: `(double)(int)v`).
    std::map<unsigned, std::string> Closings;
    for (const ExplicitCastExpr *Cast : Chain.LaneCasts) {
      SourceRange Type =
          Cast->getTypeInfoAsWritten()->getTypeLoc().getSourceRange();
      SourceLocation Closing; // the `>` or `)` after the type, if any
      if (const auto *Named = dyn_cast<CXXNamedCastExpr>(Cast))
        Closing = Named->getAngleBrackets().getEnd();
      else if (const auto *CStyle = dyn_cast<CStyleCastExpr>(Cast))
        Closing = CStyle->getRParenLoc();
      unsigned CastBegin, CastEnd, Unused, TypeEnd, SubEnd;
      if (!Inside(Cast->getSourceRange(), CastBegin, CastEnd) ||
          !offsets(Closing.isValid() ? SourceRange(Closing) : Type, Unused,
                   TypeEnd) ||
          !offsets(Cast->getSubExpr()->getSourceRange(), Unused, SubEnd))
        continue;
      const bool CStyle = isa<CStyleCastExpr>(Cast);
      Edits.push_back({CastBegin, TypeEnd,
                       vb("lane_cast<") + sourceText(Context, Type).str() +
                           (CStyle ? ">(" : ">")});
      if (CStyle)
        Closings[SubEnd] += ")";
    }
    for (const auto &[At, Text] : Closings)
      Edits.push_back({At, At, Text});
  }
  for (const auto &[Operand, Index] : Chain.Parameters) {
    unsigned OperandBegin, OperandEnd;
    if (offsets(Operand->getSourceRange(), OperandBegin, OperandEnd) &&
        OperandBegin >= Begin && OperandEnd <= End &&
        original(Operand) != Chain.Names[Index])
      Edits.push_back({OperandBegin, OperandEnd, Chain.Names[Index]});
  }
  if (Lanes)
    hoistViews(Chain, Begin, End, Edits);
  return splice(Range, std::move(Edits));
}

// Note [Views hoisted out of lane loops] in fuse_lanes.cpp: each hoisted view
// is `_b_viewN`, declared in braces around its loop (`for` may be the body of
// another statement), its own text printed there (an outer loop's views are
// hoisted first, so an inner loop's may select from one).
void Printer::hoistViews(const FusedChain &Chain, unsigned Begin, unsigned End,
                         std::vector<Edit> &Edits) {
  std::map<const ForStmt *, std::string> Declared;
  // One name for a view written twice (`d[i][k]` twice in the loop).
  std::map<std::pair<const ForStmt *, std::string>, std::string> Names;
  for (unsigned N = 0; N < Chain.LaneHoists.size(); ++N) {
    const auto &[Loop, View] = Chain.LaneHoists[N];
    unsigned LoopBegin, LoopEnd, ViewBegin, ViewEnd;
    if (!offsets(Loop->getSourceRange(), LoopBegin, LoopEnd) ||
        LoopBegin < Begin || LoopEnd > End ||
        !offsets(View->getSourceRange(), ViewBegin, ViewEnd))
      continue;
    // Its text as printed: the edits inside it (a view an outer loop
    // hoisted among them), no others.
    std::vector<Edit> Inside;
    llvm::copy_if(Edits, std::back_inserter(Inside), [&](const Edit &E) {
      return E.Begin >= ViewBegin && E.End <= ViewEnd;
    });
    const std::string Text = splice(View->getSourceRange(), std::move(Inside));
    std::string &Name = Names[{Loop, Text}];
    if (Name.empty()) {
      Name = "_b_view" + std::to_string(Names.size() - 1);
      Declared[Loop] += "const auto " + Name + " = " + Text + "; ";
    }
    llvm::erase_if(Edits, [&](const Edit &E) {
      return E.Begin >= ViewBegin && E.End <= ViewEnd;
    });
    Edits.push_back({ViewBegin, ViewEnd, Name});
  }
  // (Loops that end together close together: one edit.)
  std::map<unsigned, std::string> Closings;
  for (const auto &[Loop, Declarations] : Declared) {
    // A body that is no block ends with a `;` outside the loop's range.
    SourceRange Range = Loop->getSourceRange();
    const Stmt *Body = Loop->getBody();
    while (const auto *Inner = dyn_cast<ForStmt>(Body))
      Body = Inner->getBody();
    if (!isa<CompoundStmt>(Body))
      if (std::optional<Token> Next = Lexer::findNextToken(
              Range.getEnd(), SM, Context.getLangOpts()))
        if (Next->is(tok::semi))
          Range.setEnd(Next->getLocation());
    unsigned LoopBegin, LoopEnd;
    offsets(Range, LoopBegin, LoopEnd);
    Edits.push_back({LoopBegin, LoopBegin, "{ " + Declarations});
    Closings[LoopEnd] += " }";
  }
  for (const auto &[At, Text] : Closings)
    Edits.push_back({At, At, Text});
}

} // namespace clang_vmap::emit_detail
