// kdt_npy.h - NumPy .npy reading and writing for the C++ runtime prelude
// (the harness of emitted C++ and `kdt run`'s inputs and outputs).
#ifndef KDT_RUNTIME_KDT_NPY_H
#define KDT_RUNTIME_KDT_NPY_H

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kdt_api.h"
#include "kdt_numerics.h"

namespace kdt_rt {

// ===========================================================================
// 5. NumPy .npy files
// ===========================================================================

struct NpyArray {
  std::string descr;            // e.g. "<f4", "|b1", "<V2"
  std::vector<uint64_t> shape;  // empty for a 0-d array
  std::vector<unsigned char> data;  // C order, little-endian
};

// What the header of a .npy file says, before its data is read.
struct NpyHeader {
  std::string descr;
  std::vector<uint64_t> shape;
  size_t itemsize = 0;
  uint64_t data_bytes = 0;  // product(shape) x itemsize
  size_t data_offset = 0;   // where the data starts in the file
};

// KD dtype name -> the descr kdt writes; nullptr for an unknown name.
KDT_RT_API const char* npy_descr_for(const char* kd_dtype);

// Whether a file with this descr can feed a KD parameter of dtype kd_dtype.
// 1-byte types accept any byte-order character ('|i1', '<i1', ...); bf16
// accepts '<V2', '|V2' (ml_dtypes.bfloat16) and '<u2' (raw bit patterns).
KDT_RT_API bool npy_descr_accepts(const char* kd_dtype, const std::string& descr);

namespace detail {

// Parses a simple descr "<kind><size>" with a byte-order prefix. Returns false
// with a message for anything kdt cannot hold as raw little-endian bytes.
KDT_RT_API bool npy_parse_descr(const std::string& descr, size_t& itemsize, std::string& error);

KDT_RT_API bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out);

// Parser for the Python-literal header dictionary of a .npy file.
class NpyHeaderParser {
 public:
  NpyHeaderParser(const char* begin, const char* end) : p_(begin), end_(end) {}

  bool parse(std::string& descr, bool& fortran, std::vector<uint64_t>& shape, std::string& error) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    if (!eat('{')) return fail(error, "header is not a Python dict");
    for (;;) {
      skip_ws();
      if (eat('}')) break;
      std::string key;
      if (!parse_string(key)) return fail(error, "malformed header dict (expected a string key)");
      skip_ws();
      if (!eat(':')) return fail(error, "malformed header dict (expected ':')");
      skip_ws();
      if (key == "descr") {
        if (have_descr) return fail(error, "duplicate 'descr' in header");
        if (at('[')) return fail(error, "structured dtypes are not supported");
        if (!parse_string(descr)) return fail(error, "malformed 'descr' in header");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_fortran) return fail(error, "duplicate 'fortran_order' in header");
        if (!parse_bool(fortran)) return fail(error, "malformed 'fortran_order' in header");
        have_fortran = true;
      } else if (key == "shape") {
        if (have_shape) return fail(error, "duplicate 'shape' in header");
        if (!parse_shape(shape)) return fail(error, "malformed 'shape' in header");
        have_shape = true;
      } else {
        return fail(error, "unexpected key '" + key + "' in header");
      }
      skip_ws();
      if (eat(',')) continue;
      skip_ws();
      if (eat('}')) break;
      return fail(error, "malformed header dict (expected ',' or '}')");
    }
    skip_ws();
    if (p_ != end_) return fail(error, "trailing characters after the header dict");
    if (!have_descr || !have_fortran || !have_shape) {
      return fail(error, "header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return true;
  }

 private:
  static bool fail(std::string& error, const std::string& message) {
    error = message;
    return false;
  }
  bool at(char c) const { return p_ != end_ && *p_ == c; }
  bool eat(char c) {
    if (!at(c)) return false;
    ++p_;
    return true;
  }
  void skip_ws() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool parse_string(std::string& out) {
    if (p_ == end_ || (*p_ != '\'' && *p_ != '"')) return false;
    const char quote = *p_++;
    out.clear();
    while (p_ != end_ && *p_ != quote) {
      if (*p_ == '\\') {
        ++p_;
        if (p_ == end_) return false;
      }
      out.push_back(*p_++);
    }
    return eat(quote);
  }
  bool parse_word(const char* word) {
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return false;
    p_ += n;
    return true;
  }
  bool parse_bool(bool& out) {
    if (parse_word("True")) {
      out = true;
      return true;
    }
    if (parse_word("False")) {
      out = false;
      return true;
    }
    return false;
  }
  bool parse_uint(uint64_t& out) {
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    uint64_t v = 0;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
      const uint64_t digit = static_cast<uint64_t>(*p_ - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10u) return false;
      v = v * 10u + digit;
      ++p_;
    }
    if (p_ != end_ && (*p_ == 'L' || *p_ == 'l')) ++p_;  // Python 2 long
    out = v;
    return true;
  }
  bool parse_shape(std::vector<uint64_t>& shape) {
    shape.clear();
    if (!eat('(')) return false;
    skip_ws();
    if (eat(')')) return true;
    for (;;) {
      uint64_t v = 0;
      if (!parse_uint(v)) return false;
      shape.push_back(v);
      skip_ws();
      if (eat(')')) return true;
      if (!eat(',')) return false;
      skip_ws();
      if (eat(')')) return true;
      if (shape.size() > 64) return false;
    }
  }

  const char* p_;
  const char* end_;
};

struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f != nullptr) std::fclose(f);
  }
};

KDT_RT_API std::string npy_shape_repr(const std::vector<uint64_t>& shape);

// The item size of `descr` and the number of elements of `shape`, as the
// reader and the writer both check them: false with a message when kdt
// cannot hold the dtype or the element count overflows 64 bits.
KDT_RT_API bool npy_element_count(const std::string& descr, const std::vector<uint64_t>& shape, size_t& itemsize,
                              uint64_t& count, std::string& error);

// The largest header dict accepted (format 2.0 and 3.0 allow 4 GiB; np.save
// writes a few hundred bytes, and NumPy's own reader stops at 10000 by
// default): a header is read into memory before anything is known.
constexpr uint64_t kNpyMaxHeaderBytes = uint64_t{1} << 20;

// How many bytes the magic, version, header length and header dict take,
// from the first bytes of a file (at least 12 of them, or all the file
// has); 0 when they do not say (npy_parse_header then reports why).
KDT_RT_API size_t npy_header_extent(const unsigned char* bytes, size_t size);

// Parses the magic string, version and header dict at the start of a .npy
// file (`size` bytes of it, at least up to the end of the header dict).
// Messages do not name a file; npy_read_impl puts the path in front of them.
KDT_RT_API bool npy_parse_header(const unsigned char* bytes, size_t size, NpyHeader& h, std::string& error);

// Whether `data_size` bytes after the header are exactly what it promises.
KDT_RT_API bool npy_check_data_size(const NpyHeader& h, uint64_t data_size, std::string& error);

// Parses a whole .npy file held in memory.
KDT_RT_API bool npy_parse_impl(const unsigned char* bytes, size_t size, NpyArray& out, std::string& error);

// Appends up to `n` bytes read from `f` to `bytes` (fewer only at the end
// of the file or on an error), in chunks: memory grows with what arrives,
// whatever a header claims.
KDT_RT_API void npy_read_upto(std::FILE* f, std::vector<unsigned char>& bytes, uint64_t n);

// Reads exactly the bytes the header promises: a regular file must hold
// them and nothing more (checked against its size before the data is
// read); a pipe, FIFO or device is read no further than the header and
// data, so that a stream that does not end (/dev/zero, a FIFO kept open)
// cannot make the reader wait or allocate without bound.
KDT_RT_API bool npy_read_impl(const std::string& path, NpyArray& out, std::string& error,
                          const std::function<bool(const NpyHeader&)>& accept);

// The header np.save writes for an array (version 1.0, 2.0 only if the
// header exceeds 65535 bytes): keys sorted, spare spaces for growing the
// first axis (GROWTH_AXIS_MAX_DIGITS = 21), then spaces and a newline so
// that the data starts at a multiple of 64 bytes.
KDT_RT_API bool npy_header_impl(const std::string& descr, const std::vector<uint64_t>& shape, size_t bytes,
                            std::string& out, std::string& error);

KDT_RT_API bool npy_write_impl(const std::string& path, const std::string& descr,
                           const std::vector<uint64_t>& shape, const void* data, size_t bytes,
                           std::string& error);

}  // namespace detail

// Reads a .npy file (format 1.0, 2.0 or 3.0, C order, little-endian or 1-byte
// items). On failure returns false, leaves `out` unchanged and sets `error`
// to a message that starts with the path. Never throws. `accept`, when
// given, sees the header before any data is read and may refuse it (the
// caller then says why). Reads exactly the header and the data it promises:
// a regular file must hold no more and no less; a FIFO or device is not
// read past them (see npy_read_impl).
KDT_RT_API bool npy_read(const std::string& path, NpyArray& out, std::string& error,
                     const std::function<bool(const NpyHeader&)>& accept = nullptr);

// Parses the bytes of a whole .npy file held in memory (what npy_read reads
// from a file), with the same checks and messages, less the path in front.
// On failure returns false, leaves `out` unchanged and sets `error`. Never
// throws.
KDT_RT_API bool npy_parse(const void* data, size_t size, NpyArray& out, std::string& error);

// The bytes np.save writes before the data of an array of `bytes` bytes
// (which must equal product(shape) x item size of `descr`). Never throws.
KDT_RT_API bool npy_header(const std::string& descr, const std::vector<uint64_t>& shape, size_t bytes,
                       std::string& out, std::string& error);

// Writes a version 1.0 .npy file (2.0 only if the header exceeds 65535 bytes)
// byte-for-byte as np.save does; `bytes` must equal product(shape) x item
// size of `descr`. Never throws.
KDT_RT_API bool npy_write(const std::string& path, const std::string& descr,
                      const std::vector<uint64_t>& shape, const void* data, size_t bytes,
                      std::string& error);

// ---------------------------------------------------------------------------
// Definitions of the functions declared KDT_RT_API above: inline in a
// self-contained file, compiled once into `kdt run`'s runtime library,
// and left out of a kernel that links that library (kdt_api.h).
// ---------------------------------------------------------------------------
#if !defined(KDT_RT_SEPARATE)

KDT_RT_API const char* npy_descr_for(const char* kd_dtype) {
  if (kd_dtype == nullptr) return nullptr;
  static const char* const table[][2] = {
      {"bool", "|b1"}, {"i8", "|i1"},  {"i16", "<i2"}, {"i32", "<i4"}, {"i64", "<i8"},
      {"u8", "|u1"},   {"u16", "<u2"}, {"u32", "<u4"}, {"u64", "<u8"}, {"f16", "<f2"},
      {"bf16", "<V2"}, {"f32", "<f4"}, {"f64", "<f8"},
  };
  for (const auto& entry : table) {
    if (std::strcmp(kd_dtype, entry[0]) == 0) return entry[1];
  }
  return nullptr;
}

KDT_RT_API bool npy_descr_accepts(const char* kd_dtype, const std::string& descr) {
  const char* canonical = npy_descr_for(kd_dtype);
  if (canonical == nullptr) return false;
  if (descr == canonical) return true;
  if (std::strcmp(kd_dtype, "bf16") == 0) return descr == "|V2" || descr == "<u2";
  if (canonical[2] == '1' && canonical[3] == '\0' && descr.size() == 3 && descr[1] == canonical[1] &&
      descr[2] == '1') {
    return descr[0] == '|' || descr[0] == '<' || descr[0] == '>' || descr[0] == '=';
  }
  return false;
}

KDT_RT_API bool detail::npy_parse_descr(const std::string& descr, size_t& itemsize, std::string& error) {
  if (descr.size() < 3) {
    error = "unsupported dtype descr '" + descr + "'";
    return false;
  }
  const char order = descr[0];
  const char kind = descr[1];
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    error = "unsupported dtype descr '" + descr + "' (no byte-order character)";
    return false;
  }
  if (std::strchr("biufcVS", kind) == nullptr || kind == '\0') {
    error = "unsupported dtype descr '" + descr + "'";
    return false;
  }
  uint64_t n = 0;
  for (size_t i = 2; i < descr.size(); ++i) {
    const char c = descr[i];
    if (c < '0' || c > '9' || n > 100000000u) {
      error = "unsupported dtype descr '" + descr + "'";
      return false;
    }
    n = n * 10u + static_cast<uint64_t>(c - '0');
  }
  if (n == 0) {
    error = "unsupported dtype descr '" + descr + "' (zero item size)";
    return false;
  }
  if (n > 1 && order == '>') {
    error = "big-endian data ('" + descr + "') is not supported; save it little-endian, e.g. "
            "arr.astype('<" + descr.substr(1) + "')";
    return false;
  }
  if (n > 1 && order == '=') {
    error = "native byte order in descr '" + descr + "' is ambiguous; save it with '<'";
    return false;
  }
  itemsize = static_cast<size_t>(n);
  return true;
}

KDT_RT_API bool detail::mul_overflows(uint64_t a, uint64_t b, uint64_t& out) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return true;
  out = a * b;
  return false;
}

KDT_RT_API std::string detail::npy_shape_repr(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  s += ")";
  return s;
}

KDT_RT_API bool detail::npy_element_count(const std::string& descr, const std::vector<uint64_t>& shape, size_t& itemsize,
                              uint64_t& count, std::string& error) {
  if (!npy_parse_descr(descr, itemsize, error)) return false;
  count = 1;
  for (uint64_t d : shape) {
    if (mul_overflows(count, d, count)) {
      error = "array shape " + npy_shape_repr(shape) + " is too large";
      return false;
    }
  }
  return true;
}

KDT_RT_API size_t detail::npy_header_extent(const unsigned char* bytes, size_t size) {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(bytes, magic, 6) != 0) return 0;
  const unsigned major = bytes[6];
  if ((major != 1 && major != 2 && major != 3) || bytes[7] != 0) return 0;
  if (major == 1) {
    return 10u + (static_cast<size_t>(bytes[8]) | (static_cast<size_t>(bytes[9]) << 8));
  }
  if (size < 12) return 0;
  const uint64_t header_len = static_cast<uint64_t>(bytes[8]) | (static_cast<uint64_t>(bytes[9]) << 8) |
                              (static_cast<uint64_t>(bytes[10]) << 16) | (static_cast<uint64_t>(bytes[11]) << 24);
  if (header_len > kNpyMaxHeaderBytes) return 0;
  return 12u + static_cast<size_t>(header_len);
}

KDT_RT_API bool detail::npy_parse_header(const unsigned char* bytes, size_t size, NpyHeader& h, std::string& error) {
  static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size == 0) {
    error = "empty file, not a NumPy .npy file";
    return false;
  }
  if (size < 6 || std::memcmp(bytes, magic, 6) != 0) {
    error = "not a NumPy .npy file (bad magic string)";
    return false;
  }
  if (size < 10) {
    error = "truncated .npy file (incomplete header)";
    return false;
  }
  const unsigned major = bytes[6];
  const unsigned minor = bytes[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    error = "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
            " (supported: 1.0, 2.0, 3.0)";
    return false;
  }
  uint64_t header_len;
  size_t prefix_len = 10;
  if (major == 1) {
    header_len = static_cast<uint64_t>(bytes[8]) | (static_cast<uint64_t>(bytes[9]) << 8);
  } else {
    if (size < 12) {
      error = "truncated .npy file (incomplete header)";
      return false;
    }
    header_len = static_cast<uint64_t>(bytes[8]) | (static_cast<uint64_t>(bytes[9]) << 8) |
                 (static_cast<uint64_t>(bytes[10]) << 16) | (static_cast<uint64_t>(bytes[11]) << 24);
    prefix_len = 12;
  }
  if (header_len > kNpyMaxHeaderBytes) {
    error = ".npy header is implausibly large (" + std::to_string(header_len) + " bytes)";
    return false;
  }
  if (header_len > size - prefix_len) {
    error = "truncated .npy file (incomplete header)";
    return false;
  }
  const char* header = reinterpret_cast<const char*>(bytes + prefix_len);
  std::string descr;
  bool fortran = false;
  std::vector<uint64_t> shape;
  std::string message;
  NpyHeaderParser parser(header, header + header_len);
  if (!parser.parse(descr, fortran, shape, message)) {
    error = "invalid .npy header: " + message;
    return false;
  }
  if (fortran) {
    error = "arrays in Fortran order (fortran_order: True) are not supported; save a "
            "C-ordered array, e.g. np.save(path, np.ascontiguousarray(arr))";
    return false;
  }
  size_t itemsize = 0;
  uint64_t count = 0;
  if (!npy_element_count(descr, shape, itemsize, count, error)) return false;
  uint64_t expected = 0;
  if (mul_overflows(count, itemsize, expected) || expected > std::numeric_limits<size_t>::max() / 2) {
    error = "array shape " + npy_shape_repr(shape) + " is too large";
    return false;
  }
  h.descr = std::move(descr);
  h.shape = std::move(shape);
  h.itemsize = itemsize;
  h.data_bytes = expected;
  h.data_offset = prefix_len + static_cast<size_t>(header_len);
  return true;
}

KDT_RT_API bool detail::npy_check_data_size(const NpyHeader& h, uint64_t data_size, std::string& error) {
  if (data_size > h.data_bytes) {
    error = ".npy data is larger than shape " + npy_shape_repr(h.shape) + " x " + std::to_string(h.itemsize) +
            " bytes = " + std::to_string(h.data_bytes) + " bytes";
    return false;
  }
  if (data_size != h.data_bytes) {
    error = "truncated .npy file: data has " + std::to_string(data_size) + " bytes, shape " +
            npy_shape_repr(h.shape) + " x " + std::to_string(h.itemsize) + " bytes needs " +
            std::to_string(h.data_bytes);
    return false;
  }
  return true;
}

KDT_RT_API bool detail::npy_parse_impl(const unsigned char* bytes, size_t size, NpyArray& out, std::string& error) {
  NpyHeader h;
  if (!npy_parse_header(bytes, size, h, error)) return false;
  // The data is checked against the shape before anything is allocated, so
  // that a header claiming a huge shape cannot make us allocate more than
  // the input holds.
  if (!npy_check_data_size(h, size - h.data_offset, error)) return false;
  out.descr = std::move(h.descr);
  out.shape = std::move(h.shape);
  out.data.assign(bytes + h.data_offset, bytes + size);
  return true;
}

KDT_RT_API void detail::npy_read_upto(std::FILE* f, std::vector<unsigned char>& bytes, uint64_t n) {
  unsigned char buffer[1 << 16];
  while (n > 0) {
    const size_t want = n < sizeof buffer ? static_cast<size_t>(n) : sizeof buffer;
    const size_t got = std::fread(buffer, 1, want, f);
    bytes.insert(bytes.end(), buffer, buffer + got);
    n -= got;
    if (got < want) return;
  }
}

KDT_RT_API bool detail::npy_read_impl(const std::string& path, NpyArray& out, std::string& error,
                          const std::function<bool(const NpyHeader&)>& accept) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(status)) {
    error = path + ": is a directory, not a .npy file";
    return false;
  }
  const bool regular = !ec && std::filesystem::is_regular_file(status);
  FileCloser file{std::fopen(path.c_str(), "rb")};
  if (file.f == nullptr) {
    error = path + ": cannot open for reading: " + std::strerror(errno);
    return false;
  }
  std::vector<unsigned char> bytes;
  npy_read_upto(file.f, bytes, 12);
  const size_t extent = npy_header_extent(bytes.data(), bytes.size());
  if (extent > bytes.size()) npy_read_upto(file.f, bytes, extent - bytes.size());
  if (std::ferror(file.f)) {
    error = path + ": read error";
    return false;
  }
  NpyHeader h;
  std::string message;
  if (!npy_parse_header(bytes.data(), bytes.size(), h, message)) {
    error = path + ": " + message;
    return false;
  }
  if (accept && !accept(h)) {
    error = path + ": the array's dtype or shape is not the one expected";
    return false;
  }
  if (regular) {
    const uintmax_t file_size = std::filesystem::file_size(path, ec);
    if (!ec && file_size >= h.data_offset && !npy_check_data_size(h, file_size - h.data_offset, message)) {
      error = path + ": " + message;
      return false;
    }
  }
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(h.data_offset));
  npy_read_upto(file.f, bytes, h.data_bytes - bytes.size());
  if (std::ferror(file.f)) {
    error = path + ": read error";
    return false;
  }
  // A regular file that grew while it was read still fails here.
  if (regular && std::fgetc(file.f) != EOF) {
    error = path + ": .npy data is larger than shape " + npy_shape_repr(h.shape) + " x " +
            std::to_string(h.itemsize) + " bytes = " + std::to_string(h.data_bytes) + " bytes";
    return false;
  }
  if (!npy_check_data_size(h, bytes.size(), message)) {
    error = path + ": " + message;
    return false;
  }
  out.descr = std::move(h.descr);
  out.shape = std::move(h.shape);
  out.data = std::move(bytes);
  return true;
}

KDT_RT_API bool detail::npy_header_impl(const std::string& descr, const std::vector<uint64_t>& shape, size_t bytes,
                            std::string& out, std::string& error) {
  size_t itemsize = 0;
  uint64_t count = 0;
  if (!npy_element_count(descr, shape, itemsize, count, error)) return false;
  uint64_t expected = 0;
  if (mul_overflows(count, itemsize, expected) || expected != static_cast<uint64_t>(bytes)) {
    error = "npy_write: " + std::to_string(bytes) + " bytes of data do not match shape " + npy_shape_repr(shape) +
            " of '" + descr + "'";
    return false;
  }
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
                     npy_shape_repr(shape) + ", }";
  if (!shape.empty()) {
    const size_t digits = std::to_string(shape[0]).size();
    if (digits < 21) dict.append(21 - digits, ' ');
  }
  for (int version = 1; version <= 2; ++version) {
    const size_t prefix_len = version == 1 ? 10u : 12u;
    const size_t padlen = 64u - (prefix_len + dict.size() + 1u) % 64u;
    const size_t header_len = dict.size() + padlen + 1u;
    if (version == 1 && header_len > 0xFFFFu) continue;
    out.assign("\x93NUMPY", 6);
    out.push_back(static_cast<char>(version));
    out.push_back('\0');
    for (size_t i = 0; i < (version == 1 ? 2u : 4u); ++i) {
      out.push_back(static_cast<char>((header_len >> (8u * i)) & 0xFFu));
    }
    out += dict;
    out.append(padlen, ' ');
    out.push_back('\n');
    if (out.size() % 64u != 0) break;
    return true;
  }
  error = "npy_write: header too large";
  return false;
}

KDT_RT_API bool detail::npy_write_impl(const std::string& path, const std::string& descr,
                           const std::vector<uint64_t>& shape, const void* data, size_t bytes,
                           std::string& error) {
  std::string header;
  std::string message;
  if (!npy_header_impl(descr, shape, bytes, header, message)) {
    error = path + ": " + message;
    return false;
  }
  if (bytes > 0 && data == nullptr) {
    error = path + ": npy_write: null data";
    return false;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    error = path + ": cannot open for writing: " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            (bytes == 0 || std::fwrite(data, 1, bytes, f) == bytes);
  const int saved_errno = errno;
  if (std::fclose(f) != 0) ok = false;
  if (!ok) {
    error = path + ": write error: " + std::strerror(saved_errno != 0 ? saved_errno : errno);
    std::remove(path.c_str());
    return false;
  }
  return true;
}

KDT_RT_API bool npy_read(const std::string& path, NpyArray& out, std::string& error,
                     const std::function<bool(const NpyHeader&)>& accept) {
  try {
    return detail::npy_read_impl(path, out, error, accept);
  } catch (const std::exception& e) {
    try { error = path + ": " + e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

KDT_RT_API bool npy_parse(const void* data, size_t size, NpyArray& out, std::string& error) {
  try {
    return detail::npy_parse_impl(static_cast<const unsigned char*>(data), size, out, error);
  } catch (const std::exception& e) {
    try { error = e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

KDT_RT_API bool npy_header(const std::string& descr, const std::vector<uint64_t>& shape, size_t bytes,
                       std::string& out, std::string& error) {
  try {
    return detail::npy_header_impl(descr, shape, bytes, out, error);
  } catch (const std::exception& e) {
    try { error = e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

KDT_RT_API bool npy_write(const std::string& path, const std::string& descr,
                      const std::vector<uint64_t>& shape, const void* data, size_t bytes,
                      std::string& error) {
  try {
    return detail::npy_write_impl(path, descr, shape, data, bytes, error);
  } catch (const std::exception& e) {
    try { error = path + ": " + e.what(); } catch (...) {}
    return false;
  } catch (...) {
    return false;
  }
}

#endif  // !KDT_RT_SEPARATE

}  // namespace kdt_rt

#endif  // KDT_RUNTIME_KDT_NPY_H
