//===- diagnostics.cpp - clang-vmap's own diagnostics ---------------------===//

#include "diagnostics.h"

using namespace clang;

namespace clang_vmap {
namespace {

enum class DiagLevel { Error, Warning, Remark, Note, Refusal };

struct Entry {
  DiagLevel Level;
  const char *Format;
};

constexpr Entry Entries[] = {
#define VMAP_DIAG(Name, Lvl, Format) {DiagLevel::Lvl, Format},
#define VMAP_REFUSAL(Name, Format) {DiagLevel::Refusal, Format},
#include "diagnostics.def"
};
static_assert(std::size(Entries) == diag::NumKinds);

/// Custom diagnostics in Clang 19 have a fixed severity, untouched by -Werror
/// and -w, so those flags are applied here, once per translation unit.
DiagnosticIDs::Level severity(DiagLevel Level, const DiagnosticsEngine &Engine,
                              bool KeepGoing) {
  auto Warning = [&] {
    if (Engine.getIgnoreAllWarnings())
      return DiagnosticIDs::Ignored;
    return Engine.getWarningsAsErrors() ? DiagnosticIDs::Error
                                        : DiagnosticIDs::Warning;
  };
  switch (Level) {
  case DiagLevel::Error:
    return DiagnosticIDs::Error;
  case DiagLevel::Warning:
    return Warning();
  case DiagLevel::Remark:
    return DiagnosticIDs::Remark;
  case DiagLevel::Note:
    return DiagnosticIDs::Note;
  case DiagLevel::Refusal:
    return KeepGoing ? Warning() : DiagnosticIDs::Error;
  }
  llvm_unreachable("unknown diagnostic level");
}

} // namespace

Diagnostics::Diagnostics(DiagnosticsEngine &Engine, bool KeepGoing)
    : Engine(Engine), KeepGoing(KeepGoing) {
  DiagnosticIDs &IDs = *Engine.getDiagnosticIDs();
  CustomIDs.reserve(diag::NumKinds);
  for (const Entry &E : Entries)
    CustomIDs.push_back(
        IDs.getCustomDiagID(severity(E.Level, Engine, KeepGoing), E.Format));
}

bool Diagnostics::isRefusal(diag::Kind Kind) {
  return Entries[Kind].Level == DiagLevel::Refusal;
}

DiagnosticBuilder Diagnostics::report(diag::Kind Kind, SourceLocation Loc) {
  if (isRefusal(Kind))
    ++NumRefusals;
  return Engine.Report(Loc, CustomIDs[Kind]);
}

} // namespace clang_vmap
