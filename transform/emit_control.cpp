//===- emit_control.cpp - Print per-example control flow ------------------===//
//
// The Printer's statements that run under mask frames (Note [Control masks]
// in rules/include/vmap/batched.hpp): `while` and `do` loops, plain loops a
// jump leaves, `switch` on a per-example value, and early returns of clones.
//
//===----------------------------------------------------------------------===//

#include "emit_printer.h"
#include "ast_util.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

namespace clang_vmap::emit_detail {

// `while`, `do`, `switch`, jumps, and plain loops and returns that leave a
// mask frame; false for the statements stmt() prints itself.
bool Printer::control(const Stmt *S, unsigned Indent) {
  if (const auto *Attributed = dyn_cast<AttributedStmt>(S)) {
    stmt(Attributed->getSubStmt(), Indent); // `[[fallthrough]];` is a no-op
    return true;
  }
  if (isa<BreakStmt>(S) || isa<ContinueStmt>(S)) {
    bool Break = isa<BreakStmt>(S);
    auto Target = A.MaskedJumps.find(S);
    if (Target == A.MaskedJumps.end())
      line(Indent, Break ? "break;" : "continue;", S, /*Profiled=*/false);
    else
      line(Indent,
           ControlNames.lookup(Target->second) +
               (Break ? ".exit();" : ".skip();"),
           S, /*Profiled=*/false);
    return true;
  }
  if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
    if (!A.Callee || !A.MaskedControls.count(A.Callee->getBody()))
      return false;
    std::string Value = returnValue(Return->getRetValue());
    const auto *Body = cast<CompoundStmt>(A.Callee->getBody());
    if (S == Body->body_back())
      line(Indent, "return " + ReturnsName + ".result(" + Value + ");", S);
    else
      line(Indent, ReturnsName + ".exit(" + Value + ");", S);
    return true;
  }
  if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
    switchStmt(Switch, Indent);
    return true;
  }
  if (isa<WhileStmt>(S) || isa<DoStmt>(S) ||
      (A.MaskedControls.count(S) &&
       (isa<ForStmt>(S) || isa<CXXForRangeStmt>(S)))) {
    loop(S, Indent);
    return true;
  }
  return false;
}

// A masked loop runs while any example is in it; a `continue` of some examples
// ends when the iteration does (resume()), before the condition is tested. So
// does the iteration's last statement in the profile: the condition counts
// toward the loop's line (Note [Profiled statements] in vmap/profile.hpp).
void Printer::loop(const Stmt *S, unsigned Indent) {
  std::string Pad(Indent, ' ');
  const auto *While = dyn_cast<WhileStmt>(S);
  const auto *Do = dyn_cast<DoStmt>(S);
  if (!A.MaskedControls.count(S)) {
    if (While) {
      line(Indent, "while (" + expr(While->getCond()) + ") {", S);
      block(While->getBody(), Indent + 2);
      Out += Pad + "}\n";
      return;
    }
    line(Indent, "do {", S);
    block(Do->getBody(), Indent + 2);
    Out += Pad + "} while (" + expr(Do->getCond()) + ");\n";
    return;
  }
  std::string Name = freshName("_b_loop" + std::to_string(NumLoops++), Taken);
  ControlNames[S] = Name;
  std::string Resume = Pad + "    " + Name + ".resume();\n";
  line(Indent, "{ " + vb("Loop ") + Name + ";", S);
  if (While) {
    Out += Pad + "  while (" + Name + ".next(" + expr(While->getCond()) +
           ")) {\n";
    block(While->getBody(), Indent + 4);
    Out += Resume + Pad + "  }\n";
  } else if (Do) {
    Out += Pad + "  do {\n";
    block(Do->getBody(), Indent + 4);
    Out += Resume + Pad + "  } while (" + Name + ".next(" +
           expr(Do->getCond()) + "));\n";
  } else if (const auto *For = dyn_cast<ForStmt>(S);
             For && For->getCond() && batched(For->getCond())) {
    Out += Pad + "  " + forHeader(For, Name) + " {\n";
    block(For->getBody(), Indent + 4);
    Out += Resume + Pad + "  }\n";
  } else {
    std::string Header =
        isa<ForStmt>(S)
            ? forHeader(cast<ForStmt>(S))
            : sourceText(Context,
                         SourceRange(cast<CXXForRangeStmt>(S)->getForLoc(),
                                     cast<CXXForRangeStmt>(S)->getRParenLoc()))
                  .str();
    const Stmt *Body = isa<ForStmt>(S) ? cast<ForStmt>(S)->getBody()
                                       : cast<CXXForRangeStmt>(S)->getBody();
    // An increment that writes per-example values (`for (;; m += 1)`) runs
    // for the examples that `continue`d too: the iteration ends (resume())
    // before it, and the next one tests who is left without ending it again.
    bool StepsPerExample = isa<ForStmt>(S) && cast<ForStmt>(S)->getInc() &&
                           batched(cast<ForStmt>(S)->getInc());
    Out += Pad + "  " + Header + " {\n";
    Out += Pad + "    if (!" + Name +
           (StepsPerExample ? ".next(true))\n" : ".next())\n");
    Out += Pad + "      break;  // clang-vmap: every example has left\n";
    block(Body, Indent + 4);
    if (StepsPerExample)
      Out += Resume;
    Out += Pad + "  }\n";
  }
  Out += Pad + "}\n";
}

// A masked switch: each label lets the examples whose value matches join, and
// runs on from there (fallthrough) until they leave with `break`.
void Printer::switchStmt(const SwitchStmt *Switch, unsigned Indent) {
  std::string Pad(Indent, ' ');
  const auto *Body = cast<CompoundStmt>(Switch->getBody());
  bool Masked = A.MaskedControls.count(Switch);
  std::string Name = freshName("_b_switch" + std::to_string(NumSwitches), Taken);
  std::vector<std::string> Labels;
  for (const Stmt *Child : Body->body())
    for (const auto *Label = dyn_cast<SwitchCase>(Child); Label;
         Label = dyn_cast<SwitchCase>(Label->getSubStmt()))
      if (const auto *Case = dyn_cast<CaseStmt>(Label))
        Labels.push_back(
            llvm::toString(Case->getLHS()->EvaluateKnownConstInt(Context), 10));
  if (Masked) {
    ++NumSwitches;
    ControlNames[Switch] = Name;
    line(Indent,
         "{ " + vb("Switch ") + Name + "(" + expr(Switch->getCond()) + ", {" +
             llvm::join(Labels, ", ") + "});",
         Switch);
  } else {
    line(Indent, "switch (" + expr(Switch->getCond()) + ") {", Switch);
  }
  for (const Stmt *Child : Body->body()) {
    while (const auto *Label = dyn_cast<SwitchCase>(Child)) {
      const auto *Case = dyn_cast<CaseStmt>(Label);
      std::string Text =
          Masked ? Name + (Case ? ".enter(" +
                                      llvm::toString(Case->getLHS()->EvaluateKnownConstInt(Context), 10) +
                                      ");"
                                : ".enter_default();")
                 : (Case ? "case " + original(Case->getLHS()) + ":"
                         : std::string("default:"));
      line(Indent + 2, Text, Label, /*Profiled=*/false);
      Child = Label->getSubStmt();
    }
    stmt(Child, Indent + (Masked ? 2 : 4));
  }
  Out += Pad + "}\n";
}

// Every early return converts to the function's type, as `return` does, so
// the merged result has one C++ type.
std::string Printer::returnValue(const Expr *Value) {
  if (!Value)
    return "";
  QualType Type = A.Callee->getReturnType();
  if (!isScalarType(Type))
    return expr(Value);
  return vb("scalar_cast<") + qualifiedTypeName(Type, Context) + ">(" +
         expr(Value) + ")";
}

} // namespace clang_vmap::emit_detail
