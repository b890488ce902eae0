// kdt_gen_selfcheck: checks of the generator itself, without kdt: the
// model's numbers against values worked out by hand from IEEE 754 and the
// KD specification, determinism, fuzzer-byte input (short, empty, random),
// and the .npy round trip. Exit status 0 when every check holds.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kd_gen.h"
#include "npy.h"
#include "scalar.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

using kdt::gen::DType;

void numbers() {
  using namespace kdt::gen;
  // f16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1.0 (0x3C00);
  // 1 + 3 * 2^-11 rounds up to 1 + 2^-9 (0x3C02); 65520 overflows.
  expect(from_f64(DType::F16, 1.0 + std::ldexp(1.0, -11)) == 0x3C00, "f16 tie to even");
  expect(from_f64(DType::F16, 1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02, "f16 tie up");
  expect(from_f64(DType::F16, 65520.0) == 0x7C00, "f16 overflow");
  expect(from_f64(DType::F16, std::ldexp(1.0, -24)) == 0x0001, "f16 smallest subnormal");
  expect(from_f64(DType::F16, std::ldexp(1.0, -25)) == 0x0000, "f16 half the smallest subnormal ties to 0");
  expect(as_f64(DType::F16, 0x3555) == 0x3555 * 0 + 0.333251953125, "f16 decode");
  expect(from_f64(DType::BF16, 1.0 + std::ldexp(1.0, -8)) == 0x3F80, "bf16 tie to even");
  expect(from_f64(DType::BF16, -2.5) == 0xC020, "bf16 -2.5");
  // int64 -> bf16 in one rounding: 2^60 + 2^52 + 1 is just above the tie.
  const uint64_t big = (uint64_t{1} << 60) + (uint64_t{1} << 52) + 1;
  expect(cast(DType::BF16, DType::I64, big) == 0x5D81, "i64 -> bf16 single rounding");
  // Float -> int: truncate, saturate, NaN -> 0.
  expect(cast(DType::I8, DType::F32, from_f64(DType::F32, -3.75)) == 0xFD, "f32 -> i8 truncates");
  expect(cast(DType::I8, DType::F32, from_f64(DType::F32, 300.0)) == 0x7F, "f32 -> i8 saturates");
  expect(cast(DType::U8, DType::F32, from_f64(DType::F32, -1.0)) == 0, "f32 -> u8 saturates at 0");
  expect(cast(DType::I32, DType::F32, 0x7FC00000) == 0, "NaN -> 0");
  expect(cast(DType::I16, DType::I32, 0x12345) == 0x2345, "i32 -> i16 wraps");
  expect(cast(DType::Bool, DType::F32, 0x80000000) == 0, "bool(-0.0) is false");
  // Integer semantics.
  expect(binary(BinOp::Div, DType::I32, 0x80000000, 0xFFFFFFFF) == 0x80000000, "INT_MIN / -1 wraps");
  expect(binary(BinOp::Rem, DType::I32, 0x80000000, 0xFFFFFFFF) == 0, "INT_MIN % -1 is 0");
  expect(binary(BinOp::Div, DType::I8, 0xF9, 2) == 0xFD, "-7 / 2 truncates to -3");
  expect(binary(BinOp::Rem, DType::I8, 0xF9, 2) == 0xFF, "-7 % 2 is -1");
  expect(binary(BinOp::Shl, DType::I8, 1, 8) == 0, "shift by the width gives 0");
  expect(binary(BinOp::Shr, DType::I8, 0x80, 9) == 0xFF, "arithmetic shift past the width gives the sign");
  expect(binary(BinOp::Shr, DType::U8, 0x80, 7) == 1, "logical shift");
  expect(binary(BinOp::Lt, DType::U16, 0xFFFF, 1) == 0, "unsigned compare");
  expect(binary(BinOp::Lt, DType::I16, 0xFFFF, 1) == 1, "signed compare");
  expect(binary(BinOp::Max, DType::F32, 0x80000000, 0) == 0, "maximum(-0, +0) is +0");
  expect(binary(BinOp::Min, DType::F32, 0, 0x80000000) == 0x80000000, "minimum(+0, -0) is -0");
  // f16 arithmetic rounds after each operation: 2048 + 1 is 2048 in f16.
  expect(binary(BinOp::Add, DType::F16, from_f64(DType::F16, 2048), from_f64(DType::F16, 1)) ==
             from_f64(DType::F16, 2048), "f16 add rounds");
}

void programs() {
  // Same seed, same program; a different seed, (almost surely) another.
  kdt::gen::Choices a(42), b(42), c(43);
  const kdt::gen::Program pa = kdt::gen::generate(a), pb = kdt::gen::generate(b), pc = kdt::gen::generate(c);
  expect(pa.source == pb.source && pa.inputs.size() == pb.inputs.size(), "generation is deterministic");
  expect(pa.source != pc.source, "seeds change the program");
  expect(pa.source.find("kernel " + pa.kernel + "(") != std::string::npos, "the kernel is named");
  for (const kdt::gen::Array& e : pa.expected) expect(!e.bytes.empty(), "expected output " + e.name + " has data");
  // Fuzzer bytes: empty, short and random inputs all give programs.
  kdt::gen::Choices empty(nullptr, 0);
  expect(!kdt::gen::generate(empty).source.empty(), "empty fuzzer input");
  std::vector<uint8_t> bytes(4096);
  uint64_t x = 1;
  for (int round = 0; round < 200; ++round) {
    for (uint8_t& v : bytes) v = static_cast<uint8_t>((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56);
    kdt::gen::Choices from_bytes(bytes.data(), static_cast<size_t>(round * 20));
    try {
      expect(!kdt::gen::generate(from_bytes).source.empty(), "fuzzer input gives a program");
    } catch (const std::exception& e) {
      expect(false, std::string("fuzzer input: ") + e.what());
    }
  }
}

void npy() {
  const std::string path = "kdt_gen_selfcheck.npy";
  const std::vector<uint8_t> data = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0};
  kdt::gen::write_npy(path, "<i2", {2, 3}, data);
  kdt::gen::NpyArray back;
  std::string error;
  expect(kdt::gen::read_npy(path, back, error), "npy read: " + error);
  expect(back.descr == "<i2" && back.shape == std::vector<int64_t>{2, 3} && back.bytes == data, "npy round trip");
  std::remove(path.c_str());
}

}  // namespace

int main() {
  numbers();
  programs();
  npy();
  std::printf("kdt_gen_selfcheck: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
