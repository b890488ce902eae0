// Owns the text of every file kdt reads and maps byte offsets to the
// line/column positions that diagnostics, `#line` directives and the LSP use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kdt {

// 0 means "no file"; real files are numbered from 1 in the order read.
using FileId = uint32_t;

// A half-open byte range [begin, end) in one file.
struct SourceRange {
  FileId file = 0;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != 0; }
  static SourceRange cover(const SourceRange& a, const SourceRange& b);
};

// 1-based positions; `column` counts Unicode code points, `byte_column`
// bytes, `utf16_column` UTF-16 code units (what the LSP speaks).
struct LineColumn {
  uint32_t line = 1;
  uint32_t column = 1;
  uint32_t byte_column = 1;
  uint32_t utf16_column = 1;
  // As GCC counts display columns (-fdiagnostics-column-unit=display): a
  // tab advances to the next multiple of 8 plus 1, an East Asian wide
  // character takes 2 columns, a combining mark 0.
  uint32_t display_column = 1;
};

struct SourceFile {
  std::string path;
  std::string text;
  std::vector<uint32_t> line_starts;
  // Per line: only ASCII bytes, so columns equal byte columns (no scan).
  std::vector<bool> ascii_lines;  // ASCII without tabs: every byte is one column of every kind
};

class SourceManager {
 public:
  FileId add(std::string path, std::string text);
  const SourceFile& file(FileId id) const { return files_.at(id - 1); }
  size_t file_count() const { return files_.size(); }

  LineColumn position(FileId id, uint32_t offset) const;
  // The text of 1-based `line`, without its line terminator.
  std::string_view line_text(FileId id, uint32_t line) const;
  // Byte offset of a 0-based (line, UTF-16 column) position, clamped to the text.
  uint32_t offset_of_utf16(FileId id, uint32_t line0, uint32_t utf16_col0) const;

 private:
  std::vector<SourceFile> files_;
};

}  // namespace kdt
