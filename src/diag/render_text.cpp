// The clang-like text consumer.
#include <algorithm>
#include <sstream>

#include "kdt/diag/render.h"

namespace kdt {

namespace {

const char* color_of(Severity severity) {
  switch (severity) {
    case Severity::Error: return "\x1b[1;31m";
    case Severity::Warning: return "\x1b[1;35m";
    case Severity::Note: return "\x1b[1;36m";
  }
  return "";
}

// Padding that lines the caret up under `line[0, bytes)`: tabs stay tabs,
// every other code point becomes one space.
std::string pad_to(std::string_view line, size_t bytes) {
  std::string pad;
  for (size_t i = 0; i < bytes && i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == '\t') pad += '\t';
    else if ((c & 0xC0) != 0x80) pad += ' ';
  }
  return pad;
}

class TextWriter {
 public:
  static constexpr size_t kMaxLine = 240;  // longest source line shown whole
  static constexpr size_t kContext = 80;   // bytes shown before the range in a long line

  TextWriter(const SourceManager& sources, bool color) : sources_(sources), color_(color) {}

  void diagnostic(const Diagnostic& d) {
    header(d.range, d.severity, d.message, diag_info(d.code).name);
    snippet(d.range);
    for (const Label& label : d.labels) {
      header(label.range, Severity::Note, label.message, nullptr);
      snippet(label.range);
    }
    for (const Note& note : d.notes) {
      header(note.range, Severity::Note, note.message, nullptr);
      snippet(note.range);
    }
    for (const FixIt& fix : d.fixits) {
      header(fix.range, Severity::Note,
             std::string(fix.range.begin == fix.range.end ? "fix-it: insert \"" : "fix-it: replace with \"") +
                 fix.replacement + "\"",
             nullptr);
    }
  }

  std::string str() const { return out_.str(); }

 private:
  void header(SourceRange range, Severity severity, const std::string& message, const char* code) {
    if (color_) out_ << "\x1b[1m";
    if (range.valid()) {
      LineColumn lc = sources_.position(range.file, range.begin);
      out_ << sources_.file(range.file).path << ':' << lc.line << ':' << lc.column << ": ";
    } else {
      // A note without a location reads as a continuation of its diagnostic.
    }
    if (color_) out_ << color_of(severity);
    out_ << severity_name(severity) << ": ";
    if (color_) out_ << "\x1b[0m\x1b[1m";
    out_ << message;
    if (code) out_ << " [" << code << ']';
    if (color_) out_ << "\x1b[0m";
    out_ << '\n';
  }

  void snippet(SourceRange range) {
    if (!range.valid()) return;
    LineColumn start = sources_.position(range.file, range.begin);
    LineColumn finish = sources_.position(range.file, range.end);
    std::string_view line = sources_.line_text(range.file, start.line);
    size_t from = start.byte_column - 1;
    size_t to = finish.line == start.line ? finish.byte_column - 1 : line.size();
    // A very long line (generated code, one huge literal) is shown as a
    // window around the range, cut at UTF-8 boundaries and marked with `...`.
    std::string lead;
    if (line.size() > kMaxLine) {
      size_t lo = from > kContext ? from - kContext : 0;
      size_t hi = std::min(line.size(), lo + kMaxLine);
      while (lo > 0 && (static_cast<unsigned char>(line[lo]) & 0xC0) == 0x80) --lo;
      while (hi < line.size() && (static_cast<unsigned char>(line[hi]) & 0xC0) == 0x80) ++hi;
      if (lo > 0) lead = "...";
      std::string_view shown = line.substr(lo, hi - lo);
      out_ << lead << shown << (hi < line.size() ? "..." : "") << '\n';
      from -= lo;
      to = std::min(std::max(to, lo), hi) - lo;
      line = shown;
    } else {
      out_ << line << '\n';
    }
    out_ << std::string(lead.size(), ' ') << pad_to(line, from);
    if (color_) out_ << "\x1b[1;32m";
    out_ << '^';
    std::string tildes = pad_to(line.substr(std::min(from + 1, line.size())),
                                to > from + 1 ? to - from - 1 : 0);
    for (char& c : tildes) c = c == '\t' ? '\t' : '~';
    out_ << tildes;
    if (color_) out_ << "\x1b[0m";
    out_ << '\n';
  }

  const SourceManager& sources_;
  bool color_;
  std::ostringstream out_;
};

}  // namespace

std::string render_text(const std::vector<Diagnostic>& diags, const SourceManager& sources, bool color) {
  TextWriter writer(sources, color);
  for (const Diagnostic& d : diags) writer.diagnostic(d);
  return writer.str();
}

std::string render(DiagFormat format, const std::vector<Diagnostic>& diags, const SourceManager& sources,
                   bool color) {
  switch (format) {
    case DiagFormat::Text: return render_text(diags, sources, color);
    case DiagFormat::Json: return render_json(diags, sources);
    case DiagFormat::Sarif: return render_sarif(diags, sources);
  }
  return {};
}

}  // namespace kdt
