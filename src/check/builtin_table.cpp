// The rows of the built-in table (kdt/check/builtin_table.h).
#include "kdt/check/builtin_table.h"

#include <algorithm>
#include <cstring>

namespace kdt {

namespace {

using K = Keyword;
using T = KeywordType;
using R = ResultRule;

constexpr KeywordSpec kMask{K::Mask, "mask", T::BoolMask};
constexpr KeywordSpec kOther{K::Other, "other", T::ElementScalar};
constexpr KeywordSpec kAxis{K::Axis, "axis", T::ConstAxis};
constexpr KeywordSpec kKeepdims{K::Keepdims, "keepdims", T::BoolLiteral};
constexpr KeywordSpec kDtype{K::Dtype, "dtype", T::DTypeName};
constexpr KeywordSpec kTransA{K::TransA, "trans_a", T::BoolLiteral};
constexpr KeywordSpec kTransB{K::TransB, "trans_b", T::BoolLiteral};
constexpr KeywordSpec kAdd{K::Add, "add", T::BoolLiteral};
constexpr KeywordSpec kSrcSem{K::SrcSem, "src_sem", T::DmaSemaphore};
constexpr KeywordSpec kDevice{K::Device, "device", T::I32Scalar};

// In BuiltinId order (builtin() indexes it; a test checks the order).
const std::vector<BuiltinSpec> kTable = {
    // id                  name            positional keywords                  result
    {BuiltinId::Cast,        "",             1, 1, {},                          R::Cast},
    {BuiltinId::ProgramId,   "program_id",   1, 1, {},                          R::GridScalar},
    {BuiltinId::NumPrograms, "num_programs", 1, 1, {},                          R::GridScalar},
    {BuiltinId::DeviceId,    "device_id",    0, 1, {},                          R::GridScalar},
    {BuiltinId::NumDevices,  "num_devices",  0, 1, {},                          R::GridScalar},
    {BuiltinId::Cdiv,        "cdiv",         2, 2, {},                          R::Operands},
    {BuiltinId::Ds,          "ds",           2, 2, {},                          R::IndexOnly},
    {BuiltinId::Zeros,       "zeros",        1, 1, {},                          R::Creation},
    {BuiltinId::Ones,        "ones",         1, 1, {},                          R::Creation},
    {BuiltinId::Full,        "full",         2, 2, {},                          R::Creation},
    {BuiltinId::Iota,        "iota",         2, 2, {},                          R::Creation},
    {BuiltinId::Exp,         "exp",          1, 1, {},                          R::FloatUnary},
    {BuiltinId::Log,         "log",          1, 1, {},                          R::FloatUnary},
    {BuiltinId::Sqrt,        "sqrt",         1, 1, {},                          R::FloatUnary},
    {BuiltinId::Rsqrt,       "rsqrt",        1, 1, {},                          R::FloatUnary},
    {BuiltinId::Tanh,        "tanh",         1, 1, {},                          R::FloatUnary},
    {BuiltinId::Sin,         "sin",          1, 1, {},                          R::FloatUnary},
    {BuiltinId::Cos,         "cos",          1, 1, {},                          R::FloatUnary},
    {BuiltinId::Abs,         "abs",          1, 1, {},                          R::FloatUnary},
    {BuiltinId::Floor,       "floor",        1, 1, {},                          R::FloatUnary},
    {BuiltinId::Ceil,        "ceil",         1, 1, {},                          R::FloatUnary},
    {BuiltinId::Maximum,     "maximum",      2, 2, {},                          R::Elementwise},
    {BuiltinId::Minimum,     "minimum",      2, 2, {},                          R::Elementwise},
    {BuiltinId::Where,       "where",        3, 3, {},                          R::Elementwise},
    {BuiltinId::Sum,         "sum",          1, 1, {kAxis, kKeepdims},          R::Reduction},
    {BuiltinId::Max,         "max",          1, 1, {kAxis, kKeepdims},          R::Reduction},
    {BuiltinId::Min,         "min",          1, 1, {kAxis, kKeepdims},          R::Reduction},
    {BuiltinId::Broadcast,   "broadcast",    2, 2, {},                          R::ShapeList},
    {BuiltinId::Reshape,     "reshape",      2, 2, {},                          R::ShapeList},
    {BuiltinId::Transpose,   "transpose",    1, 1, {},                          R::Transposed},
    {BuiltinId::Dot,         "dot",          2, 2, {kDtype, kTransA, kTransB},  R::Dot},
    {BuiltinId::Load,        "load",         1, 1, {kMask, kOther},             R::ViewLoad},
    {BuiltinId::Store,       "store",        2, 2, {kMask},                     R::Void},
    {BuiltinId::DmaStart,    "dma_start",    1, 3, {kAdd, kSrcSem, kDevice},    R::Descriptor},
    {BuiltinId::DmaWait,     "dma_wait",     1, 2, {},                          R::Void},
    {BuiltinId::Dma,         "dma",          3, 3, {kAdd, kSrcSem, kDevice},    R::Descriptor},
    {BuiltinId::DmaWaitSend, "dma_wait_send", 1, 1, {},                         R::Void},
    {BuiltinId::DmaWaitRecv, "dma_wait_recv", 1, 1, {},                         R::Void},
    {BuiltinId::SemSignal,   "sem_signal",   1, 2, {kDevice},                   R::Void},
    {BuiltinId::SemWait,     "sem_wait",     1, 2, {},                          R::Void},
    {BuiltinId::SemRead,     "sem_read",     1, 1, {},                          R::SemValue},
};

constexpr const char* kKeywordNames[kKeywordCount] = {"mask",  "other",   "axis", "keepdims", "dtype",
                                                      "trans_a", "trans_b", "add",  "src_sem",  "device"};

}  // namespace

const KeywordSpec* BuiltinSpec::keyword(std::string_view word) const {
  for (const KeywordSpec& k : keywords) {
    if (word == k.name) return &k;
  }
  return nullptr;
}

const std::vector<BuiltinSpec>& builtin_table() { return kTable; }

const BuiltinSpec& builtin(BuiltinId id) { return kTable[static_cast<size_t>(id)]; }

const BuiltinSpec* find_builtin(std::string_view callee) {
  if (dtype_from_name(callee)) return &builtin(BuiltinId::Cast);
  if (callee.empty()) return nullptr;
  auto it = std::find_if(kTable.begin(), kTable.end(), [&](const BuiltinSpec& b) { return callee == b.name; });
  return it == kTable.end() ? nullptr : &*it;
}

const char* keyword_name(Keyword k) { return kKeywordNames[static_cast<size_t>(k)]; }

DType dot_accumulator(DType input) {
  return input == DType::F64                            ? DType::F64
         : is_float(input)                              ? DType::F32
         : input == DType::I64 || input == DType::U64 ? DType::I64
                                                        : DType::I32;
}

}  // namespace kdt
