// kdt_codes.h - the diagnostic codes of kdt's registry, for the run-time
// checks of emitted C++: kdt_rt::Code has the enumerators of kdt::DiagCode
// (include/kdt/diag/diagnostics.def: same names, same values), and
// code_name() gives the stable kebab-case code that `kdt run` reads back.
// The embedded prelude carries the registry's rows in place of the
// #include lines below (cmake/EmbedText.cmake), so emitted files stay
// self-contained.
#ifndef KDT_RUNTIME_KDT_CODES_H
#define KDT_RUNTIME_KDT_CODES_H

#include <cstring>

namespace kdt_rt {

enum class Code {
#define KDT_DIAG(id, name, severity, phase, summary) id,
#include "../diag/diagnostics.def"
#undef KDT_DIAG
};

namespace detail {
struct CodeRow {
  Code code;
  const char* name;
};
constexpr CodeRow kCodes[] = {
#define KDT_DIAG(id, name, severity, phase, summary) {Code::id, name},
#include "../diag/diagnostics.def"
#undef KDT_DIAG
};
}  // namespace detail

inline const char* code_name(Code code) { return detail::kCodes[static_cast<int>(code)].name; }

// The code named `name`; InternalError for a name that is not a code.
inline Code code_from_name(const char* name) {
  for (const detail::CodeRow& row : detail::kCodes) {
    if (std::strcmp(row.name, name) == 0) return row.code;
  }
  return Code::InternalError;
}

// The code of a run-time error: an enumerator (kdt_rt::Code::OutOfBounds).
// A code's name ("out-of-bounds") converts too, for emitted code that
// spells codes as strings; it is looked up in the registry.
struct RunCode {
  Code id = Code::InternalError;
  RunCode() = default;
  RunCode(Code code) : id(code) {}
  RunCode(const char* name) : id(code_from_name(name)) {}
  const char* name() const { return code_name(id); }
  friend bool operator==(RunCode a, RunCode b) { return a.id == b.id; }
  friend bool operator!=(RunCode a, RunCode b) { return a.id != b.id; }
};

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_CODES_H
