// The one place that handles indentation and line directives for the
// C-like emitters (C++ now; CUDA shares it).
#pragma once

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

  static std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
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
