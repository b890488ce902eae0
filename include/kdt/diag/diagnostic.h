// Diagnostics: the codes of the registry and the data every stage reports.
// Rendering (text, JSON, SARIF, LSP) is done by separate consumers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kdt/source/source_manager.h"

namespace kdt {

enum class Severity { Note, Warning, Error };

// When a code is reported (the Phase column of diagnostics.def): Compile and
// Run codes have a location in the KD source, Tool codes none.
enum class DiagPhase { Compile, Run, Tool };

enum class DiagCode {
#define KDT_DIAG(id, name, severity, phase, summary) id,
#include "kdt/diag/diagnostics.def"
#undef KDT_DIAG
};

constexpr size_t kDiagCodeCount = 0
#define KDT_DIAG(id, name, severity, phase, summary) +1
#include "kdt/diag/diagnostics.def"
#undef KDT_DIAG
    ;

struct DiagInfo {
  DiagCode code;
  const char* name;        // the stable kebab-case code
  const char* enumerator;  // the DiagCode's name, which the runtime prelude shares (kdt_rt::Code::...)
  Severity severity;
  DiagPhase phase;
  const char* summary;
};

const std::vector<DiagInfo>& all_diagnostics();
const DiagInfo& diag_info(DiagCode code);
std::optional<DiagCode> diag_code_from_name(std::string_view name);
const char* severity_name(Severity severity);

// An explanation for `--explain` (src/diag/explanations.def, one per code,
// joined to its code by the enumerator; the build fails when one is missing).
struct Explanation {
  const char* code;  // the kebab-case name, diag_info(id).name
  const char* text;
  const char* example;
  DiagCode id;
};
const Explanation& explanation(DiagCode code);
// The explanation of a code given by name; nullptr where the name is not a code.
const Explanation* find_explanation(std::string_view code);
// In registry order.
const std::vector<Explanation>& all_explanations();

struct Label {
  SourceRange range;
  std::string message;
};

struct Note {
  std::string message;
  SourceRange range;  // may be invalid: a note without a location
};

struct FixIt {
  SourceRange range;  // empty range = insertion
  std::string replacement;
};

struct Diagnostic {
  DiagCode code;
  Severity severity;
  std::string message;
  SourceRange range;
  std::vector<Label> labels;
  std::vector<Note> notes;
  std::vector<FixIt> fixits;
};

}  // namespace kdt
