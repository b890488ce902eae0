// Running the C++ compiler and the compiled kernel without a shell
// (posix_spawn): each in a process group of its own, redirections done by
// file actions, SIGINT/SIGTERM forwarded, an optional time limit.
#pragma once

#include <string>
#include <vector>

namespace kdt {

// Splits a command such as $CXX into words the way a POSIX shell does for
// make's recipes: blanks separate words, '...' and "..." quote, a backslash
// escapes the next character; nothing is expanded (globs stay as written).
// False, with `error`, for an unterminated quote or an unquoted shell
// operator or expansion (| & ; < > ( ) $ `), which kdt, running no shell,
// cannot honour.
bool split_words(const std::string& text, std::vector<std::string>& words, std::string& error);

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH unless it holds a `/`
  std::string stdin_path = "/dev/null";
  std::string stdout_path;        // created (mode 0600, truncated); "" keeps kdt's
  std::string stderr_path;        // the same as stdout_path: one file for both
  double timeout_s = 0;           // 0: no limit
};

struct ProcessResult {
  enum class Kind {
    Exited,       // `code` is the exit status
    Signaled,     // `code` is the signal that killed it
    NotStarted,   // `code` is the errno of the failed start (ENOENT: not found)
    TimedOut,     // ran past timeout_s; its process group was killed
    Interrupted,  // kdt got `code` (SIGINT, SIGTERM, ...), forwarded it and stopped the child
  };
  Kind kind = Kind::Exited;
  int code = 0;
};

// Starts the process and waits for it. Call it inside an InterruptScope
// (signals.h): a signal kdt gets is forwarded to the child's process group,
// which is killed (SIGKILL) if it has not ended two seconds later; so is a
// child past its time limit (SIGTERM first, then SIGKILL a second later).
ProcessResult run_process(const ProcessSpec& spec);

// "was not found", "was killed by signal 9 (SIGKILL)", "exited with status 1", ...
std::string describe(const ProcessResult& result);

}  // namespace kdt
