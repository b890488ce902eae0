#include <algorithm>

#include "kdt/diag/diagnostic.h"

namespace kdt {

const std::vector<DiagInfo>& all_diagnostics() {
  static const std::vector<DiagInfo> infos = {
#define KDT_DIAG(id, name, severity, summary) {DiagCode::id, name, Severity::severity, summary},
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

const std::vector<Explanation>& all_explanations() {
  static const std::vector<Explanation> explanations = {
#define KDT_EXPLAIN(code, text, example) {code, text, example},
#include "explanations.def"
#undef KDT_EXPLAIN
  };
  return explanations;
}

const Explanation* find_explanation(std::string_view code) {
  for (const Explanation& e : all_explanations()) {
    if (code == e.code) return &e;
  }
  return nullptr;
}

}  // namespace kdt
