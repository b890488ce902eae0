#include "source_text.h"

#include <Token.h>

#include <algorithm>

namespace kdt::syntax {

DecodedText decode_source(const std::string& text) {
  DecodedText out;
  out.bytes = static_cast<uint32_t>(text.size());
  out.ascii = std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (out.ascii) return out;
  out.utf8.reserve(text.size());
  out.byte_offset.reserve(text.size() + 1);
  size_t i = 0;
  const size_t n = text.size();
  auto byte_at = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  while (i < n) {
    unsigned char c = byte_at(i);
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      len = 1;
      cp = c;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      if ((byte_at(i + k) & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (byte_at(i + k) & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are malformed too.
    if (ok && ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
               (cp >= 0xD800 && cp <= 0xDFFF))) {
      ok = false;
    }
    out.byte_offset.push_back(static_cast<uint32_t>(i));
    if (ok) {
      out.utf8.append(text, i, len);
      i += len;
    } else {
      out.invalid_bytes.push_back(static_cast<uint32_t>(i));
      out.utf8 += "\xEF\xBF\xBD";
      i += 1;
    }
  }
  out.byte_offset.push_back(static_cast<uint32_t>(n));
  return out;
}

uint32_t TokenRanges::byte(size_t code_point) const {
  if (text_.ascii) return static_cast<uint32_t>(std::min<size_t>(code_point, text_.bytes));
  return text_.byte_offset[std::min(code_point, text_.byte_offset.size() - 1)];
}

SourceRange TokenRanges::of(const antlr4::Token* token) const {
  if (!token) return {};
  if (token->getType() == antlr4::Token::EOF) {
    return {file_, text_.bytes, text_.bytes};
  }
  return {file_, byte(token->getStartIndex()), byte(token->getStopIndex() + 1)};
}

SourceRange TokenRanges::after(const antlr4::Token* token) const {
  SourceRange r = of(token);
  return {file_, r.end, r.end};
}

SourceRange TokenRanges::between(const antlr4::Token* first, const antlr4::Token* last) const {
  SourceRange a = of(first);
  SourceRange b = of(last);
  if (!a.valid()) return b;
  if (!b.valid() || b.end < a.begin) return a;
  return {file_, a.begin, b.end};
}

}  // namespace kdt::syntax
