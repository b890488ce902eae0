// Diagnostics: the codes of the registry and the data every stage reports.
// Rendering (text, JSON, SARIF, LSP) is done by separate consumers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kdt/source/source_manager.h"

namespace kdt {

enum class Severity { Note, Warning, Error };

enum class DiagCode {
#define KDT_DIAG(id, name, severity, summary) id,
#include "kdt/diag/diagnostics.def"
#undef KDT_DIAG
};

struct DiagInfo {
  DiagCode code;
  const char* name;
  Severity severity;
  const char* summary;
};

const std::vector<DiagInfo>& all_diagnostics();
const DiagInfo& diag_info(DiagCode code);
std::optional<DiagCode> diag_code_from_name(std::string_view name);
const char* severity_name(Severity severity);

// An explanation for `--explain`; nullptr where the code is unknown.
struct Explanation {
  const char* code;
  const char* text;
  const char* example;
};
const Explanation* find_explanation(std::string_view code);
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
