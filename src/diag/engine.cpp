#include "kdt/diag/engine.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace kdt {

std::optional<Severity> WarningPolicy::severity(DiagCode code) const {
  if (silence) return std::nullopt;
  if (auto on = enabled.find(code); on != enabled.end() && !on->second) return std::nullopt;
  auto error = as_error.find(code);
  return (error != as_error.end() ? error->second : all_errors) ? Severity::Error : Severity::Warning;
}

bool WarningPolicy::apply(const std::string& flag, std::string& error) {
  // -Wall and -Wextra: every warning kdt has, which are on unless turned off.
  if (flag == "all" || flag == "extra") {
    for (const DiagInfo& info : all_diagnostics()) {
      if (info.severity == Severity::Warning) enabled[info.code] = true;
    }
    return true;
  }
  if (flag == "error") {
    all_errors = true;
    return true;
  }
  std::string name = flag;
  bool on = true, as_error_flag = false;
  if (name.rfind("no-", 0) == 0) {
    on = false;
    name = name.substr(3);
  }
  if (name.rfind("error=", 0) == 0) {
    as_error_flag = true;
    name = name.substr(6);
  }
  std::optional<DiagCode> code = diag_code_from_name(name);
  if (!code || diag_info(*code).severity != Severity::Warning) {
    std::string warnings;
    for (const DiagInfo& info : all_diagnostics()) {
      if (info.severity == Severity::Warning) warnings += std::string(warnings.empty() ? "" : ", ") + info.name;
    }
    error = "-W" + flag + ": " + (code ? "`" + name + "` is an error, not a warning" : "no warning is called `" + name + "`") +
            "; kdt's warnings are " + warnings;
    return false;
  }
  if (as_error_flag) {
    as_error[*code] = on;
    if (on) enabled[*code] = true;  // as GCC: -Werror=CODE also enables it
  } else {
    enabled[*code] = on;
  }
  return true;
}

Diagnostic* DiagnosticBuilder::target() {
  if (index_ == SIZE_MAX) return nullptr;
  return &engine_->diagnostics_[index_];
}

DiagnosticBuilder& DiagnosticBuilder::label(SourceRange range, std::string message) {
  if (Diagnostic* d = target()) d->labels.push_back({range, std::move(message)});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::note(std::string message, SourceRange range) {
  if (Diagnostic* d = target()) d->notes.push_back({std::move(message), range});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::fixit(SourceRange range, std::string replacement) {
  if (Diagnostic* d = target()) d->fixits.push_back({range, std::move(replacement)});
  return *this;
}

DiagnosticBuilder DiagnosticEngine::report(DiagCode code, SourceRange range, std::string message) {
  Severity severity = diag_info(code).severity;
  if (severity == Severity::Warning) {
    std::optional<Severity> chosen = warnings_.severity(code);
    if (!chosen) return DiagnosticBuilder(this, SIZE_MAX);
    severity = *chosen;
  }
  if (report_once_) {
    for (const Diagnostic& d : diagnostics_) {
      if (d.code == code && d.range.file == range.file && d.range.begin == range.begin && d.range.end == range.end &&
          d.message == message) {
        return DiagnosticBuilder(this, SIZE_MAX);
      }
    }
  }
  if (severity == Severity::Error) ++error_count_;
  if (diagnostics_.size() >= max_diagnostics_) {
    ++dropped_;
    return DiagnosticBuilder(this, SIZE_MAX);
  }
  diagnostics_.push_back(Diagnostic{code, severity, std::move(message), range, {}, context_, {}});
  return DiagnosticBuilder(this, diagnostics_.size() - 1);
}

std::vector<Diagnostic> DiagnosticEngine::sorted() const {
  std::vector<Diagnostic> out = diagnostics_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.range.file != b.range.file) return a.range.file < b.range.file;
    return a.range.begin < b.range.begin;
  });
  if (dropped_ > 0 && !out.empty()) {
    out.back().notes.push_back({"kdt stopped listing diagnostics after " + std::to_string(diagnostics_.size()) + "; " +
                                    std::to_string(dropped_) + " more are not shown",
                                {}});
  }
  return out;
}

}  // namespace kdt
