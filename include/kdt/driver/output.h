// Writing results without ever leaving a half-written or clobbered file.
#pragma once

#include <string>
#include <vector>

namespace kdt {

// Writes `content` to `path`: "-" is standard output; devices and pipes are
// written directly; a regular file goes through a temporary file in the same
// directory and a rename, and is left untouched (timestamp included) when
// its content would not change. Returns an error message, empty on success.
std::string write_output(const std::string& path, const std::string& content);

// The whole content of `path`, or "" when it cannot be read (a compile log,
// a kernel's captured output, a file kdt wrote itself).
std::string read_text(const std::string& path);

// A Make-syntax depfile (GCC's escaping of spaces, `$` and `#`).
// With `phony_targets`, every dependency but the main file (`deps[0]` when
// `first_is_main`) gets an empty rule, like GCC's -MP.
// `text` for a message: control characters and backslashes as C escapes.
std::string printable(const std::string& text);

// The first of `target` and `deps` that no Make rule can name (it holds a
// control character such as a newline or a tab), or "" when all can.
std::string depfile_unrepresentable(const std::string& target, const std::vector<std::string>& deps);

std::string make_depfile(const std::string& target, const std::vector<std::string>& deps, bool phony_targets,
                         bool first_is_main = true);

// Whether two paths name the same existing file.
bool same_file(const std::string& a, const std::string& b);

}  // namespace kdt
