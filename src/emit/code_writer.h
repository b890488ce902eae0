// The one place that handles indentation and line directives for the
// C-like emitters (C++ and CUDA).
//
// Line directives are exact (issue 21): every line written while a KD
// statement is current is attributed to that statement's first line, with
// a `#line` wherever the compiler's own count would say otherwise, and the
// lines written outside any statement (runtime glue) are attributed to the
// generated file itself. The writer cannot know the generated file's line
// numbers (emitters write parts into separate writers), so it marks each
// return to the generated file with kGeneratedMarker, which
// resolve_generated_lines() turns into `#line N "FILE"` on the final text.
#pragma once

#include <cstdio>
#include <sstream>
#include <string>

#include "kdt/source/source_manager.h"

namespace kdt::emit {

inline constexpr const char* kGeneratedMarker = "#line kdt-generated";

// `text` with every kGeneratedMarker line replaced by `#line N+1 "NAME"`,
// N being the marker's own line: the lines after it are counted in the
// generated file again.
std::string resolve_generated_lines(const std::string& text, const std::string& name);

// The last character of `range`: a kernel's closing brace.
inline SourceRange closing_brace(SourceRange range) {
  return range.valid() && range.end > range.begin ? SourceRange{range.file, range.end - 1, range.end} : range;
}

// The KD line that the lines being written come from (none: generated).
struct SourceMapping {
  FileId file = 0;
  uint32_t line = 0;
};

class CodeWriter {
 public:
  explicit CodeWriter(const SourceManager& sources) : sources_(sources) {}

  // One line of code, indented; a text of several lines (an asm statement)
  // keeps its own indentation after the first, and each of its lines is
  // attributed like any other.
  void line(const std::string& text = "") {
    ++lines_;
    for (size_t start = 0;;) {
      const size_t end = text.find('\n', start);
      attribute_next_line();
      if (start == 0 && !text.empty()) out_ << std::string(static_cast<size_t>(indent_) * 2, ' ');
      out_.write(text.data() + start, static_cast<std::streamsize>((end == std::string::npos ? text.size() : end) - start));
      out_ << '\n';
      if (end == std::string::npos) break;
      start = end + 1;
    }
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
  // The lines that follow come from the KD statement at `range`, so that
  // compiler errors, gdb and sanitizers point at the KD source.
  void source_line(SourceRange range) {
    if (!range.valid()) return;
    mapping_ = {range.file, static_cast<uint32_t>(sources_.position(range.file, range.begin).line)};
  }
  // What source_line() set, to restore after a nested block: a loop's
  // closing lines belong to the loop, a kernel's epilogue to no statement.
  SourceMapping mapping() const { return mapping_; }
  void restore(SourceMapping m) { mapping_ = m; }
  // Text written as it is (a prelude, another writer's str()), counted in
  // the generated file.
  void raw(const std::string& text) {
    leave_source();
    out_ << text;
  }
  void set_line_directives(bool on) { line_directives_ = on; }
  // How many times line() (and open, close, reopen) has been called: tells
  // whether anything was written since a given point.
  size_t lines() const { return lines_; }
  // The text; it ends counted in the generated file.
  std::string str() const { return out_.str() + (compiler_.line ? std::string(kGeneratedMarker) + "\n" : ""); }

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
  // Before a line: a `#line` when the compiler would attribute it to
  // another line than the current mapping's.
  void attribute_next_line() {
    if (!line_directives_ || !mapping_.line) return leave_source();
    if (compiler_.file != mapping_.file || compiler_.line != mapping_.line) {
      out_ << "#line " << mapping_.line;
      if (compiler_.file != mapping_.file) out_ << " \"" << escape(sources_.file(mapping_.file).path) << "\"";
      out_ << '\n';
    }
    compiler_ = {mapping_.file, mapping_.line + 1};
  }
  void leave_source() {
    if (!compiler_.line) return;
    out_ << kGeneratedMarker << '\n';
    compiler_ = {};
  }

  const SourceManager& sources_;
  std::ostringstream out_;
  int indent_ = 0;
  size_t lines_ = 0;  // line() calls so far
  bool line_directives_ = true;
  SourceMapping mapping_;   // where the next lines come from
  SourceMapping compiler_;  // where the compiler will say the next line comes from (line 0: the generated file)
};

inline std::string resolve_generated_lines(const std::string& text, const std::string& name) {
  std::string out;
  out.reserve(text.size());
  size_t line = 1;
  const std::string marker = std::string(kGeneratedMarker) + "\n";
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    if (text.compare(at, end - at, marker) == 0) {
      out += "#line " + std::to_string(line + 1) + " \"" + CodeWriter::escape(name) + "\"\n";
    } else {
      out.append(text, at, end - at);
    }
    at = end;
    ++line;
  }
  return out;
}

}  // namespace kdt::emit
