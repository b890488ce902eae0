#include <algorithm>

#include "kdt/diag/diagnostic.h"

namespace kdt {

const std::vector<DiagInfo>& all_diagnostics() {
  static const std::vector<DiagInfo> infos = {
#define KDT_DIAG(id, name, severity, phase, summary) \
  {DiagCode::id, name, #id, Severity::severity, DiagPhase::phase, summary},
#include "kdt/diag/diagnostics.def"
#undef KDT_DIAG
  };
  return infos;
}

const DiagInfo& diag_info(DiagCode code) { return all_diagnostics()[static_cast<size_t>(code)]; }

std::optional<DiagCode> diag_code_from_name(std::string_view name) {
  for (const DiagInfo& info : all_diagnostics()) {
    if (name == info.name) return info.code;
  }
  return std::nullopt;
}

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::Note: return "note";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "error";
}

namespace {

struct ExplanationRow {
  DiagCode code;
  const char* text;
  const char* example;
};

constexpr ExplanationRow kExplanations[] = {
#define KDT_EXPLAIN(code, text, example) {DiagCode::code, text, example},
#include "explanations.def"
};

// The join of explanations.def to the registry, checked when kdt is built:
// every code has exactly one explanation.
constexpr bool every_code_explained_once() {
  for (size_t code = 0; code < kDiagCodeCount; ++code) {
    int rows = 0;
    for (const ExplanationRow& row : kExplanations) rows += static_cast<size_t>(row.code) == code;
    if (rows != 1) return false;
  }
  return true;
}
static_assert(every_code_explained_once(), "explanations.def must explain every code of diagnostics.def exactly once");

}  // namespace

const std::vector<Explanation>& all_explanations() {
  static const std::vector<Explanation> explanations = [] {
    std::vector<Explanation> out(kDiagCodeCount);
    for (const ExplanationRow& row : kExplanations) {
      out[static_cast<size_t>(row.code)] = {diag_info(row.code).name, row.text, row.example, row.code};
    }
    return out;
  }();
  return explanations;
}

const Explanation& explanation(DiagCode code) { return all_explanations()[static_cast<size_t>(code)]; }

const Explanation* find_explanation(std::string_view code) {
  std::optional<DiagCode> id = diag_code_from_name(code);
  return id ? &explanation(*id) : nullptr;
}

}  // namespace kdt
