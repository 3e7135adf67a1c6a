//===- emit_check.cpp - The code --check wraps a batched loop in ----------===//
//
// Note [Check mode] in vmap/batched.hpp: the loop as written runs first (the
// copy the overlap guard runs, fallbackCopy), every output and accumulator is
// put back as it was, the batched loop runs (an exception from it is one the
// loop as written did not raise), and each is compared by the runtime's
// vb::check_equal, which names the file, the line, the output, the example
// and both values of the first difference.
//
//===----------------------------------------------------------------------===//

#include "emit_printer.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace clang_vmap::emit_detail {
namespace {

/// How the code around the loop names \p Var: a namespace-scope variable
/// fully qualified (a local of the same name may hide it), else its name.
std::string reference(const VarDecl *Var, const ASTContext &Context) {
  // A member path (Note [Members as variables] in analyse.cpp) is implicit.
  if (Var->isLocalVarDeclOrParm() || Var->isImplicit() ||
      !Var->getDeclContext()->isFileContext())
    return Var->getNameAsString();
  PrintingPolicy Policy = Context.getPrintingPolicy();
  Policy.SuppressUnwrittenScope = true; // anonymous and inline namespaces
  std::string Name;
  llvm::raw_string_ostream OS(Name);
  Var->printQualifiedName(OS, Policy);
  return "::" + Name;
}

} // namespace

std::string Printer::checkPrologue(unsigned Indent, StringRef Original) {
  std::string Pad(Indent, ' ');
  std::string Text = Pad + "{ // clang-vmap --check: the loop as written, then "
                           "batched from the same state, compared\n";
  for (const LoopOutput &Output : A.Outputs) {
    CheckNames.push_back(
        freshName("_b_check" + std::to_string(CheckNames.size()), Taken));
    Text += Pad + "  ::vmap::batched::CheckedOutput " + CheckNames.back() +
            "(" + reference(Output.Var, Context) + ");\n";
  }
  Text += lineDirective(Context, lineOf(Context, A.Loop->For->getBeginLoc())) +
          "\n" + Pad + "  " + fallbackCopy(Original) + "\n";
  // Every result kept before any is put back: two outputs may share elements.
  for (const char *Step : {".ran_as_written(", ".put_back("})
    for (unsigned I = 0; I < A.Outputs.size(); ++I)
      Text += Pad + "  " + CheckNames[I] + Step +
              reference(A.Outputs[I].Var, Context) + ");\n";
  return Text + Pad + "  try {\n";
}

std::string Printer::checkEpilogue(unsigned Indent) {
  std::string Pad(Indent, ' ');
  PresumedLoc Where =
      SM.getPresumedLoc(SM.getExpansionLoc(A.Loop->For->getBeginLoc()));
  std::string Site = stringLiteral(Where.getFilename()) + ", " +
                     std::to_string(Where.getLine());
  // The loop as written did not throw, or this would not run.
  std::string Error = freshName("_b_error", Taken);
  std::string Text = Pad + "  } catch (const std::exception &" + Error +
                     ") {\n" + Pad + "    ::vmap::batched::check_threw(" +
                     Error + ", " + Site + ");\n" + Pad + "  }\n";
  for (unsigned I = 0; I < A.Outputs.size(); ++I) {
    const LoopOutput &Output = A.Outputs[I];
    Text += Pad + "  " + CheckNames[I] + ".compare(" +
            reference(Output.Var, Context) + ", {" + Site + ", \"" +
            Output.Var->getNameAsString() + "\", " +
            (Output.Accumulator ? "true" : "false") + ", " +
            std::to_string(Output.ExampleDims) + "});\n";
  }
  return Text + Pad + "}\n";
}

} // namespace clang_vmap::emit_detail
