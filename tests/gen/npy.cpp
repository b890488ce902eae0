// .npy format 1.0: magic, version, a little-endian u16 header length, a
// Python dict literal padded with spaces to a multiple of 64 bytes, data.
#include "npy.h"

#include <fstream>
#include <iterator>
#include <map>

namespace kdt::gen {

std::string npy_descr(const std::string& dtype) {
  static const std::map<std::string, std::string> table = {
      {"bool", "|b1"}, {"i8", "|i1"},  {"u8", "|u1"},  {"i16", "<i2"}, {"u16", "<u2"},  {"i32", "<i4"}, {"u32", "<u4"},
      {"i64", "<i8"},  {"u64", "<u8"}, {"f16", "<f2"}, {"bf16", "<u2"}, {"f32", "<f4"}, {"f64", "<f8"}};
  auto it = table.find(dtype);
  return it == table.end() ? "" : it->second;
}

bool write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const std::vector<uint8_t>& bytes) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.erase(dims.size() - 2);  // "(2, 3)", but "(4,)" and "()"
  else if (shape.size() == 1) dims.erase(dims.size() - 1);
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xFF), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out << header;
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

bool read_npy(const std::string& path, NpyArray& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0) {
    error = path + " is not a .npy file";
    return false;
  }
  size_t header_len, start;
  if (data[6] == 1) {
    header_len = static_cast<uint8_t>(data[8]) | static_cast<size_t>(static_cast<uint8_t>(data[9])) << 8;
    start = 10;
  } else {
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(data[8 + i])) << (8 * i);
    start = 12;
  }
  if (data.size() < start + header_len) {
    error = path + ": truncated header";
    return false;
  }
  const std::string header = data.substr(start, header_len);
  auto field = [&](const std::string& key) -> size_t {
    const size_t at = header.find("'" + key + "'");
    return at == std::string::npos ? at : header.find(':', at) + 1;
  };
  size_t d = field("descr"), s = field("shape");
  if (d == std::string::npos || s == std::string::npos) {
    error = path + ": no descr or shape";
    return false;
  }
  const size_t q1 = header.find('\'', d), q2 = header.find('\'', q1 + 1);
  out.descr = header.substr(q1 + 1, q2 - q1 - 1);
  out.shape.clear();
  const size_t p1 = header.find('(', s), p2 = header.find(')', p1);
  std::string dims = header.substr(p1 + 1, p2 - p1 - 1);
  size_t pos = 0;
  while (pos < dims.size()) {
    while (pos < dims.size() && (dims[pos] == ' ' || dims[pos] == ',')) ++pos;
    if (pos >= dims.size()) break;
    size_t end = pos;
    while (end < dims.size() && dims[end] >= '0' && dims[end] <= '9') ++end;
    if (end == pos) {
      error = path + ": bad shape";
      return false;
    }
    out.shape.push_back(std::stoll(dims.substr(pos, end - pos)));
    pos = end;
  }
  out.bytes.assign(data.begin() + static_cast<int64_t>(start + header_len), data.end());
  return true;
}

}  // namespace kdt::gen
