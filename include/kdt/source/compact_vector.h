// CompactVector<T>: the interface of a std::vector that most nodes leave
// empty, in one pointer (8 bytes against 24) with its elements out of line.
// A large program has millions of expressions and most have no operands,
// arguments or indices (issue 17: a node's empty vectors were a fifth of
// the checked program). Copies are deep, as a std::vector's.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace kdt {

template <class T>
class CompactVector {
 public:
  CompactVector() = default;
  CompactVector(const CompactVector& other) { *this = other; }
  CompactVector(CompactVector&&) noexcept = default;
  CompactVector& operator=(const CompactVector& other) {
    if (this != &other) items_ = other.items_ ? std::make_unique<std::vector<T>>(*other.items_) : nullptr;
    return *this;
  }
  CompactVector& operator=(CompactVector&&) noexcept = default;
  CompactVector& operator=(std::vector<T> items) {
    items_ = items.empty() ? nullptr : std::make_unique<std::vector<T>>(std::move(items));
    return *this;
  }
  ~CompactVector() = default;

  size_t size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  const T& operator[](size_t i) const { return (*items_)[i]; }
  T& operator[](size_t i) { return (*items_)[i]; }
  const T& front() const { return items_->front(); }
  T& front() { return items_->front(); }
  const T& back() const { return items_->back(); }
  T& back() { return items_->back(); }
  const T* begin() const { return items_ ? items_->data() : nullptr; }
  const T* end() const { return begin() + size(); }
  T* begin() { return items_ ? items_->data() : nullptr; }
  T* end() { return begin() + size(); }

  void push_back(T item) { list().push_back(std::move(item)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return list().emplace_back(std::forward<Args>(args)...);
  }
  void clear() { items_.reset(); }

 private:
  std::vector<T>& list() {
    if (!items_) items_ = std::make_unique<std::vector<T>>();
    return *items_;
  }
  std::unique_ptr<std::vector<T>> items_;
};

}  // namespace kdt
