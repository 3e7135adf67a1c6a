//===- driver_options.cpp - The command line of clang-vmap ----------------===//
//
// The options of SPEC section 3, what --help says after them, and --version.
//
//===----------------------------------------------------------------------===//

#include "driver.h"
#include "clang/Basic/Version.h"

namespace cl = llvm::cl;

namespace clang_vmap {

cl::OptionCategory ToolCategory("clang-vmap options");

cl::list<std::string> SourcePaths(cl::Positional, cl::desc("<source>..."),
                                  cl::cat(ToolCategory));
cl::opt<std::string> BuildPath("p",
                               cl::desc("Use <build-dir>/compile_commands.json"),
                               cl::value_desc("build-dir"),
                               cl::cat(ToolCategory));
cl::list<std::string> ExtraArgs("extra-arg",
                                cl::desc("Add a compiler flag (after the "
                                         "others)"),
                                cl::value_desc("flag"), cl::cat(ToolCategory));
cl::list<std::string>
    ExtraArgsBefore("extra-arg-before",
                    cl::desc("Add a compiler flag (before the others)"),
                    cl::value_desc("flag"), cl::cat(ToolCategory));
cl::opt<std::string>
    OutputPath("o", cl::desc("Write the rewritten source here (one input)"),
               cl::value_desc("file"), cl::cat(ToolCategory));
cl::opt<bool> InPlace("i",
                      cl::desc("Rewrite in place (atomic: the original is "
                               "intact on any failure)"),
                      cl::cat(ToolCategory));
cl::opt<bool> PrintDiff("diff", cl::desc("Print a unified diff of the rewrite"),
                        cl::cat(ToolCategory));
cl::opt<std::string>
    ExportFixesPath("export-fixes",
                    cl::desc("Write the replacements in "
                             "clang-apply-replacements' format"),
                    cl::value_desc("yaml"), cl::cat(ToolCategory));
cl::opt<bool> Remarks("remarks",
                      cl::desc("Report each loop batched or not, and how "
                               "each statement runs, and why (-Rpass=vmap, "
                               "-Rpass-missed=vmap and -Rpass-analysis=vmap)"),
                      cl::cat(ToolCategory));
cl::opt<std::string> RemarksFile(
    "remarks-file",
    cl::desc("Write the remarks as LLVM optimization records (YAML, for "
             "opt-viewer)"),
    cl::value_desc("yaml"), cl::cat(ToolCategory));
cl::opt<bool> WriteDepfile("MD", cl::desc("Write a make-style depfile"),
                           cl::cat(ToolCategory));
cl::opt<std::string> DepfilePath("MF", cl::desc("The depfile -MD writes"),
                                 cl::value_desc("file"), cl::cat(ToolCategory));
cl::opt<std::string> RewriteHeader(
    "rewrite-header",
    cl::desc("Rewrite the loops of this header, as the sources that include "
             "it compile it, instead of the sources' own"),
    cl::value_desc("header"), cl::cat(ToolCategory));
cl::list<std::string> RewrittenElsewhere(
    "rewritten-elsewhere",
    cl::desc("A header rewritten by another run (--rewrite-header): its "
             "loops are left to it"),
    cl::value_desc("header"), cl::cat(ToolCategory));
cl::opt<bool> KeepGoing("keep-going",
                        cl::desc("Rewrite the loops that can be; leave the "
                                 "refused ones as written, with a warning"),
                        cl::cat(ToolCategory));

cl::opt<bool> CheckMode(
    "check",
    cl::desc("Also run each batched loop as written, from the same state, and "
             "throw vmap::Error where an output or accumulator differs"),
    cl::cat(ToolCategory));

// For the tool's own tests and developers: listed by --help-hidden.
cl::opt<Pass> DumpAfter(
    "dump-after", cl::desc("Print the state after a pass to stderr"),
    cl::Hidden,
    cl::values(clEnumValN(Pass::Find, "find", "the annotated loops"),
               clEnumValN(Pass::Analyse, "analyse", "the loop analyses"),
               clEnumValN(Pass::Batch, "batch", "the batch plans"),
               clEnumValN(Pass::Fuse, "fuse", "the compiled kernels"),
               clEnumValN(Pass::Emit, "emit", "the emitted text"),
               clEnumValN(Pass::Rewrite, "rewrite", "the replacements")),
    cl::init(Pass::None), cl::cat(ToolCategory));

// What --help says after the options, as clang-tidy explains its own.
cl::extrahelp MoreHelp(R"(
Compile flags:
  The flags each source is parsed with come from, in order: the flags after
  `--` (the same for every source), else the compile_commands.json of -p
  <build-dir>, else one found in a parent directory of the first source, else
  plain C++20. <vmap/vmap.hpp> is found next to the tool if no -I names it.
  --extra-arg and --extra-arg-before add flags to whichever is used.

Output:
  Without -o, -i or --diff the rewritten source goes to standard output. A
  file with a refused loop writes nothing (unless --keep-going); outputs are
  checked before anything is written, and files are replaced atomically.

Warnings and remarks:
  -Wvmap-fallback, -Wvmap-refused, -Wvmap-pragma-extra-tokens,
  -Wvmap-pragma-in-header (-Wvmap: all), given as --extra-arg or after `--`,
  as clang's own (-Werror=..., -Wno-...). --remarks prints -Rpass=vmap,
  -Rpass-missed=vmap and -Rpass-analysis=vmap remarks.

Exit status:
  0  every annotated loop was rewritten
  1  a loop was refused (--keep-going included), a source has errors, or an
     output could not be written
  2  bad usage (unknown option, outputs naming an input, ...)
  If standard output is closed early (a pipe into `head`), the rest of what
  it would print is dropped and the status is the same.

Example:
  clang-vmap model.cpp -o model.vmap.cpp -- -std=c++20 -I/opt/vmap/include
  clang-vmap -p build --diff src/model.cpp
)");

void printVersion(llvm::raw_ostream &OS) {
  OS << "clang-vmap version " CLANG_VMAP_VERSION "\n  built on Clang "
     << CLANG_VERSION_STRING << " LibTooling\n";
}

} // namespace clang_vmap
