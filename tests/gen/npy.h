// A tiny .npy (format 1.0) writer and reader for the differential tester:
// little-endian, C order, the dtypes of KD (bf16 as 2-byte `<u2` entries on
// the way in; kdt writes it back as `<V2`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kdt::gen {

struct NpyArray {
  std::string descr;            // e.g. "<i4", "|b1", "<V2"
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

// The descr kdt accepts for a KD dtype name.
std::string npy_descr(const std::string& dtype);
bool write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const std::vector<uint8_t>& bytes);
// False (with `error` set) when the file is missing or malformed.
bool read_npy(const std::string& path, NpyArray& out, std::string& error);

}  // namespace kdt::gen
