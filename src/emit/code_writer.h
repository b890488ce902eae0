// The one place that handles indentation and line directives for the
// C-like emitters (C++ now; CUDA shares it).
#pragma once

#include <cstdio>
#include <sstream>
#include <string>

#include "kdt/source/source_manager.h"

namespace kdt::emit {

class CodeWriter {
 public:
  explicit CodeWriter(const SourceManager& sources) : sources_(sources) {}

  void line(const std::string& text = "") {
    if (!text.empty()) out_ << std::string(static_cast<size_t>(indent_) * 2, ' ') << text;
    out_ << '\n';
  }
  void open(const std::string& text) {
    line(text);
    ++indent_;
  }
  void close(const std::string& text = "}") {
    --indent_;
    line(text);
  }
  // `} else {`: closes one level and opens the next.
  void reopen(const std::string& text) {
    --indent_;
    line(text);
    ++indent_;
  }
  // `#line` so that compiler errors, gdb and sanitizers point at the KD source.
  void source_line(SourceRange range) {
    if (!range.valid() || !line_directives_) return;
    LineColumn lc = sources_.position(range.file, range.begin);
    out_ << "#line " << lc.line << " \"" << escape(sources_.file(range.file).path) << "\"\n";
  }
  void raw(const std::string& text) { out_ << text; }
  void set_line_directives(bool on) { line_directives_ = on; }
  std::string str() const { return out_.str(); }

  // The body of a C/C++ string literal holding `s`: quotes and backslashes
  // escaped, every control byte as a 3-digit octal escape (never a raw
  // newline or carriage return, which would end the literal; octal, not
  // hex, because a hex escape swallows the digits that follow).
  static std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
      unsigned char u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (u < 0x20 || u == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\%03o", u);
        out += buf;
      } else {
        out += c;
      }
    }
    return out;
  }

  // `s` made safe inside a `//` comment: a newline or carriage return would
  // end the comment (the rest becoming code) and a trailing backslash would
  // splice the next line into it, so control bytes and backslashes are
  // written as escapes, visibly.
  static std::string comment(const std::string& s) {
    std::string out;
    for (char c : s) {
      unsigned char u = static_cast<unsigned char>(c);
      if (c == '\\' || u < 0x20 || u == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", u);
        out += buf;
      } else {
        out += c;
      }
    }
    return out;
  }

 private:
  const SourceManager& sources_;
  std::ostringstream out_;
  int indent_ = 0;
  bool line_directives_ = true;
};

}  // namespace kdt::emit
