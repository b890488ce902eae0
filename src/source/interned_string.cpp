#include "kdt/source/interned_string.h"

#include <mutex>
#include <unordered_set>

namespace kdt {

namespace {

// Node-based: an element's address never changes once inserted.
const std::string& intern(const std::string& text) {
  static std::mutex lock;
  static std::unordered_set<std::string> table;
  std::lock_guard<std::mutex> hold(lock);
  return *table.insert(text).first;
}

}  // namespace

// Every node starts empty: no lock for that.
InternedString::InternedString() {
  static const std::string empty;
  text_ = &empty;
}
InternedString::InternedString(const std::string& text) : text_(&intern(text)) {}
InternedString& InternedString::operator=(const std::string& text) {
  text_ = &intern(text);
  return *this;
}

}  // namespace kdt
