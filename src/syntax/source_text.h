// Bridges kdt's byte offsets and ANTLR's code-point indices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kdt/diag/engine.h"

namespace antlr4 {
class Token;
}

namespace kdt::syntax {

// The text handed to ANTLR: valid UTF-8 in which every malformed byte of
// the source is one U+FFFD, plus the byte offset of every code point.
// An ASCII source is its own decoding: `utf8` and `byte_offset` stay empty
// (they would hold a copy of the text and four bytes per byte).
struct DecodedText {
  bool ascii = false;
  uint32_t bytes = 0;  // the source's length
  std::string utf8;
  std::vector<uint32_t> byte_offset;   // size = code points + 1
  std::vector<uint32_t> invalid_bytes;  // offsets of malformed bytes
};

DecodedText decode_source(const std::string& text);

class TokenRanges {
 public:
  TokenRanges(FileId file, const DecodedText& text) : file_(file), text_(text) {}
  SourceRange of(const antlr4::Token* token) const;
  // Zero-width range just after `token` (where a missing token belongs).
  SourceRange after(const antlr4::Token* token) const;
  SourceRange between(const antlr4::Token* first, const antlr4::Token* last) const;
  FileId file() const { return file_; }

 private:
  uint32_t byte(size_t code_point) const;
  FileId file_;
  const DecodedText& text_;
};

}  // namespace kdt::syntax
