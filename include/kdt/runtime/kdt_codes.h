// kdt_codes.h - the diagnostic codes of kdt's registry, for the run-time
// checks of emitted C++: kdt_rt::Code has the enumerators of kdt::DiagCode
// (include/kdt/diag/diagnostics.def: same names, same values), and
// code_name() gives the stable kebab-case code that `kdt run` reads back.
// The embedded prelude carries the registry's rows in place of the
// #include lines below (cmake/EmbedText.cmake), so emitted files stay
// self-contained.
#ifndef KDT_RUNTIME_KDT_CODES_H
#define KDT_RUNTIME_KDT_CODES_H

namespace kdt_rt {

enum class Code {
#define KDT_DIAG(id, name, severity, phase, summary) id,
#include "../diag/diagnostics.def"
#undef KDT_DIAG
};

namespace detail {
// The codes' names, in the enumerators' order.
constexpr const char* kCodeNames[] = {
#define KDT_DIAG(id, name, severity, phase, summary) name,
#include "../diag/diagnostics.def"
#undef KDT_DIAG
};
}  // namespace detail

inline const char* code_name(Code code) { return detail::kCodeNames[static_cast<int>(code)]; }

// The code of a run-time error: an enumerator (kdt_rt::Code::OutOfBounds),
// as emitted code and the prelude's own checks give it; name() is what the
// harness reports and `kdt run` reads back.
struct RunCode {
  Code id = Code::InternalError;
  RunCode() = default;
  RunCode(Code code) : id(code) {}
  const char* name() const { return code_name(id); }
  friend bool operator==(RunCode a, RunCode b) { return a.id == b.id; }
  friend bool operator!=(RunCode a, RunCode b) { return a.id != b.id; }
};

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_CODES_H
