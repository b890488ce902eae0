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

// A Make-syntax depfile (GCC's escaping of spaces, `$` and `#`).
std::string make_depfile(const std::string& target, const std::vector<std::string>& deps, bool phony_targets);

// Whether two paths name the same existing file.
bool same_file(const std::string& a, const std::string& b);

}  // namespace kdt
