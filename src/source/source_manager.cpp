#include "kdt/source/source_manager.h"

#include <algorithm>

namespace kdt {

SourceRange SourceRange::cover(const SourceRange& a, const SourceRange& b) {
  if (!a.valid()) return b;
  if (!b.valid() || a.file != b.file) return a;
  return {a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

FileId SourceManager::add(std::string path, std::string text) {
  SourceFile file;
  file.path = std::move(path);
  file.text = std::move(text);
  file.line_starts.push_back(0);
  bool ascii = true;
  for (uint32_t i = 0; i < file.text.size(); ++i) {
    if (file.text[i] == '\n') {
      file.line_starts.push_back(i + 1);
      file.ascii_lines.push_back(ascii);
      ascii = true;
    } else if (static_cast<unsigned char>(file.text[i]) >= 0x80 || file.text[i] == '\t') {
      ascii = false;
    }
  }
  file.ascii_lines.push_back(ascii);
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size());
}

namespace {

// Length of the UTF-8 sequence starting with `lead`; malformed bytes count
// as one code point each, matching how the lexer replaces them.
unsigned utf8_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;
}

// The code point of the UTF-8 sequence of `n` bytes at `p` (U+FFFD if malformed).
uint32_t decode(const char* p, unsigned n) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  if (n == 1) return u[0] < 0x80 ? u[0] : 0xFFFD;
  uint32_t cp = u[0] & (0x7F >> n);
  for (unsigned i = 1; i < n; ++i) cp = (cp << 6) | (u[i] & 0x3F);
  return cp;
}

// Display width of a code point, as wcwidth() and GCC's cpp_wcwidth see
// the common cases: combining marks and zero-width characters 0, East
// Asian wide and fullwidth characters and emoji 2, the rest 1.
unsigned display_width(uint32_t cp) {
  struct Range {
    uint32_t first, last;
  };
  static constexpr Range kZero[] = {{0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
                                    {0x064B, 0x065F}, {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x2064},
                                    {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}};
  static constexpr Range kWide[] = {{0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},
                                    {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},   {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},
                                    {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F},
                                    {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};
  for (const Range& r : kZero) {
    if (cp >= r.first && cp <= r.last) return 0;
  }
  for (const Range& r : kWide) {
    if (cp >= r.first && cp <= r.last) return 2;
  }
  return 1;
}

}  // namespace

LineColumn SourceManager::position(FileId id, uint32_t offset) const {
  const SourceFile& f = file(id);
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(f.text.size()));
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
  uint32_t line_index = static_cast<uint32_t>(it - f.line_starts.begin()) - 1;
  uint32_t start = f.line_starts[line_index];
  LineColumn lc;
  lc.line = line_index + 1;
  lc.byte_column = offset - start + 1;
  if (f.ascii_lines[line_index]) {
    // The common case, and linear time for very long generated lines.
    lc.column = lc.utf16_column = lc.display_column = lc.byte_column;
    return lc;
  }
  uint32_t i = start;
  while (i < offset) {
    unsigned n = utf8_length(static_cast<unsigned char>(f.text[i]));
    if (i + n > offset) n = 1;
    lc.column += 1;
    lc.utf16_column += n == 4 ? 2 : 1;
    if (f.text[i] == '\t') lc.display_column = (lc.display_column - 1) / 8 * 8 + 9;
    else lc.display_column += display_width(decode(f.text.data() + i, n));
    i += n;
  }
  return lc;
}

std::string_view SourceManager::line_text(FileId id, uint32_t line) const {
  const SourceFile& f = file(id);
  if (line == 0 || line > f.line_starts.size()) return {};
  uint32_t start = f.line_starts[line - 1];
  uint32_t end = line < f.line_starts.size() ? f.line_starts[line] - 1
                                             : static_cast<uint32_t>(f.text.size());
  if (end > start && f.text[end - 1] == '\r') --end;
  return std::string_view(f.text).substr(start, end - start);
}

uint32_t SourceManager::offset_of_utf16(FileId id, uint32_t line0, uint32_t utf16_col0) const {
  const SourceFile& f = file(id);
  if (line0 >= f.line_starts.size()) return static_cast<uint32_t>(f.text.size());
  uint32_t i = f.line_starts[line0];
  uint32_t units = 0;
  while (i < f.text.size() && f.text[i] != '\n' && units < utf16_col0) {
    unsigned n = utf8_length(static_cast<unsigned char>(f.text[i]));
    units += n == 4 ? 2 : 1;
    i += n;
  }
  return std::min<uint32_t>(i, static_cast<uint32_t>(f.text.size()));
}

}  // namespace kdt
