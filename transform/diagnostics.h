//===- diagnostics.h - clang-vmap's own diagnostics through clang's engine ===//
//
// Every message the tool prints is listed in diagnostics.def and reported
// through the translation unit's DiagnosticsEngine, so users get clang's
// caret, ranges, colours and -Werror/-w behaviour. Each warning has a -W
// name (VMAP_WARNING_FLAG in diagnostics.def) that -Wno-, -Werror= and
// -Wno-error= act on as they do on clang's own warnings.
//
//   Diags.report(diag::refuse_break, Break->getBeginLoc(),
//                {Break->getSourceRange()});
//   Diags.report(diag::note_..., Loc) << "an argument";
//
//===----------------------------------------------------------------------===//
#ifndef CLANG_VMAP_DIAGNOSTICS_H
#define CLANG_VMAP_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/ArrayRef.h"
#include <memory>
#include <string>
#include <vector>

namespace clang_vmap {

namespace diag {
enum Kind : unsigned {
#define VMAP_DIAG(Name, Level, Format) Name,
#define VMAP_REFUSAL(Name, Format) Name,
#include "diagnostics.def"
  NumKinds
};
} // namespace diag

/// True for a -W flag naming one of the tool's warnings (`-Wvmap-fallback`,
/// `-Wno-error=vmap`, ...); clang itself does not know them, so the driver
/// takes them off the compile command and hands them to Diagnostics.
bool isVmapWarningFlag(llvm::StringRef Arg);

class Diagnostics {
public:
  /// Under \p KeepGoing refusals are warnings and the loop is left as written.
  /// \p WarningFlags: the command's -W flags for which isVmapWarningFlag
  /// holds, in order.
  Diagnostics(clang::DiagnosticsEngine &Engine, bool KeepGoing,
              llvm::ArrayRef<std::string> WarningFlags = {});

  /// Starts a diagnostic at \p Loc; stream further arguments and ranges into
  /// the result (it is emitted when the builder goes out of scope).
  clang::DiagnosticBuilder report(diag::Kind Kind, clang::SourceLocation Loc);

  /// Same, with highlighted ranges and the format's arguments in order.
  template <typename... ArgTs>
  clang::DiagnosticBuilder report(diag::Kind Kind, clang::SourceLocation Loc,
                                  llvm::ArrayRef<clang::SourceRange> Ranges,
                                  ArgTs &&...Args) {
    clang::DiagnosticBuilder Builder = report(Kind, Loc);
    for (clang::SourceRange Range : Ranges)
      Builder << Range;
    (Builder << ... << Args);
    return Builder;
  }

  static bool isRefusal(diag::Kind Kind);
  /// Refusals reported so far (errors, or warnings under --keep-going).
  unsigned numRefusals() const { return NumRefusals; }
  /// After a trial whose diagnostics were suppressed (Note [Plain loops as
  /// levels] in passes.cpp): its refusals were not the user's.
  void forgetRefusalsAfter(unsigned Count) { NumRefusals = Count; }
  /// The latest refusal, for remarks: its message without its -W name, and
  /// where it was reported.
  struct Refusal {
    std::string Text;
    clang::SourceLocation Loc;
  };
  const Refusal &lastRefusal() const { return *LastRefusal; }
  bool keepGoing() const { return KeepGoing; }
  /// The -W name (without -W) of the tool's diagnostic \p DiagID, "" if it
  /// has none or is not the tool's.
  llvm::StringRef warningFlagOf(unsigned DiagID) const;
  clang::DiagnosticsEngine &engine() { return Engine; }

private:
  clang::DiagnosticsEngine &Engine;
  bool KeepGoing;
  unsigned NumRefusals = 0;
  std::vector<unsigned> CustomIDs; ///< indexed by diag::Kind
  /// Shared with the consumer that fills it, which the engine owns.
  std::shared_ptr<Refusal> LastRefusal;
};

} // namespace clang_vmap

#endif
