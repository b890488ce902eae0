// InternedString: a string the AST holds as one pointer into a process-wide
// table of distinct spellings (8 bytes against a std::string's 32, and no
// copy of a long name per use). A large program has millions of names and
// literals and few distinct spellings (issue 17). Reads as a const
// std::string&; assigning a string interns it. The table only grows; it is
// shared by every compilation in the process and locked, so the language
// server and tests may parse on several threads.
#pragma once

#include <string>

namespace kdt {

class InternedString {
 public:
  InternedString();
  InternedString(const std::string& text);  // NOLINT: implicit, as a std::string is assigned
  InternedString& operator=(const std::string& text);

  operator const std::string&() const { return *text_; }  // NOLINT: reads as the string
  const std::string& str() const { return *text_; }
  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }
  const char* c_str() const { return text_->c_str(); }
  std::string::const_iterator begin() const { return text_->begin(); }
  std::string::const_iterator end() const { return text_->end(); }

 private:
  const std::string* text_;
};

inline bool operator==(const InternedString& a, const std::string& b) { return a.str() == b; }
inline bool operator==(const InternedString& a, const char* b) { return a.str() == b; }
inline bool operator!=(const InternedString& a, const std::string& b) { return a.str() != b; }
inline bool operator!=(const InternedString& a, const char* b) { return a.str() != b; }
inline std::string operator+(const std::string& a, const InternedString& b) { return a + b.str(); }
inline std::string operator+(const char* a, const InternedString& b) { return a + b.str(); }
inline std::string operator+(const InternedString& a, const char* b) { return a.str() + b; }
inline std::string operator+(const InternedString& a, const std::string& b) { return a.str() + b; }

}  // namespace kdt
