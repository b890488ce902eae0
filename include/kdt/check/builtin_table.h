// The built-ins of KD (spec sections 6, 7, 9), one row each: name, id,
// positional arity, keywords with their types, result rule. The checker
// resolves every call to a row once and records a ResolvedCall on the call
// node; IR lowering switches on the id and reads the typed keyword
// arguments, so no stage after the checker compares a built-in's or a
// keyword's name.
//
// A new built-in: a row in src/check/builtin_table.cpp (and its id here); its
// check, when its result rule is new, in src/check/builtins.cpp; its case in
// src/ir/lower.cpp; the emitters' hooks for the IR it lowers to.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "kdt/source/type.h"

namespace kdt {

namespace ast {
struct Arg;
struct Expr;
}  // namespace ast

enum class BuiltinId : uint8_t {
  // `f32(x)`, `i8(x)`, ...: the callee is a dtype name.
  Cast,
  ProgramId, NumPrograms, DeviceId, NumDevices, Cdiv,
  // `ds(start, size)`: only as an index.
  Ds,
  Zeros, Ones, Full, Iota,
  Exp, Log, Sqrt, Rsqrt, Tanh, Sin, Cos, Abs, Floor, Ceil,
  Maximum, Minimum, Where,
  Sum, Max, Min,
  Broadcast, Reshape, Transpose, Dot,
  Load, Store,
  DmaStart, DmaWait,
  // DMA descriptors (section 16): `dma(src, dst, sem, ...)` and the waits on one.
  Dma, DmaWaitSend, DmaWaitRecv,
  SemSignal, SemWait, SemRead,
};

enum class Keyword : uint8_t { Mask, Other, Axis, Keepdims, Dtype, TransA, TransB, Add, SrcSem, Device };
inline constexpr size_t kKeywordCount = static_cast<size_t>(Keyword::Device) + 1;

// What a keyword argument's value is.
enum class KeywordType : uint8_t {
  BoolLiteral,    // `true` or `false`, known when checking (keepdims, trans_a, trans_b, add)
  ConstAxis,      // a constant axis number
  DTypeName,      // a dtype name such as `bf16`
  I32Scalar,      // an `i32` scalar (a device number)
  BoolMask,       // a `bool` tile that broadcasts to the view's shape
  ElementScalar,  // a scalar of the view's dtype
  DmaSemaphore,   // a `dma` semaphore
};

// The rule for the result type; built-ins with one rule are checked alike.
enum class ResultRule : uint8_t {
  Cast,         // the callee's dtype, the operand's shape
  GridScalar,   // an `i32` scalar (program_id, num_programs, device_id, num_devices)
  Operands,     // the integer operands' dtype (cdiv)
  IndexOnly,    // no value: only inside `[...]` (ds)
  Creation,     // the dtype-and-shape argument (zeros, ones, full, iota)
  FloatUnary,   // the float operand's type (exp ... ceil)
  Elementwise,  // the operands' common dtype and broadcast shape (maximum, minimum, where)
  Reduction,    // the operand's dtype, `axis=` removed (or kept as 1)
  ShapeList,    // the operand's dtype, the shape list (broadcast, reshape)
  Transposed,   // [N, M] for [M, N]
  Dot,          // [M, N] in the accumulator dtype, or `dtype=`
  ViewLoad,     // the view's dtype and shape (load)
  Void,         // no value (store, DMAs, sem_signal, sem_wait)
  Descriptor,   // a DMA descriptor (dma; dma_start's value, section 16)
  SemValue,     // an `i32` scalar (sem_read)
};

struct KeywordSpec {
  Keyword id;
  const char* name;
  KeywordType type;
};

struct BuiltinSpec {
  BuiltinId id;
  // The callee; empty for Cast, whose callee is any dtype name.
  const char* name;
  uint8_t min_positional;
  uint8_t max_positional;
  // In the order a `bad-argument` for an unknown keyword lists them.
  std::vector<KeywordSpec> keywords;
  ResultRule result;

  const KeywordSpec* keyword(std::string_view word) const;
};

// Every row, in id order.
const std::vector<BuiltinSpec>& builtin_table();
const BuiltinSpec& builtin(BuiltinId id);
// The row `callee` names (a dtype name is Cast); nullptr when it names none.
const BuiltinSpec* find_builtin(std::string_view callee);
const char* keyword_name(Keyword k);

// The dtype `dot` accumulates in (docs/language.md): f32 for f16, bf16 and
// f32 inputs, f64 for f64, i64 for i64 and u64, i32 for the other integers.
DType dot_accumulator(DType input);

// One keyword argument as the checker typed it.
struct KeywordArg {
  const ast::Expr* value = nullptr;  // null when the call does not give it
  // ConstAxis: the axis.
  std::optional<int64_t> constant;
  // BoolLiteral: the literal's value.
  bool flag = false;
  // DTypeName: the dtype.
  std::optional<DType> dtype;
};

// A call as the checker resolved it. Lowering reads only complete ones: the
// checker fills every part a well-formed call has before it can succeed.
struct ResolvedCall {
  const BuiltinSpec* spec = nullptr;
  BuiltinId id = BuiltinId::Cast;
  // Cast: the target dtype.
  DType cast = DType::F32;
  // The positional arguments, in order.
  std::vector<const ast::Arg*> positional;
  // The keywords the call gives (or the checker typed), a few of the
  // kKeywordCount: a large program has a resolved call per built-in call,
  // and ten KeywordArgs each were a third of its checked size (issue 17).
  std::vector<std::pair<Keyword, KeywordArg>> keywords;

  // Keyword `k`: an empty KeywordArg where the call does not give it.
  const KeywordArg& operator[](Keyword k) const {
    static const KeywordArg absent;
    for (const auto& [word, arg] : keywords) {
      if (word == k) return arg;
    }
    return absent;
  }
  // Keyword `k`, added where absent. The reference lasts until the next keyword is added.
  KeywordArg& operator[](Keyword k) {
    for (auto& [word, arg] : keywords) {
      if (word == k) return arg;
    }
    return keywords.emplace_back(k, KeywordArg{}).second;
  }
  // The value of keyword `k`; null when not given.
  const ast::Expr* keyword(Keyword k) const { return (*this)[k].value; }
  // The value of a BoolLiteral keyword; false when not given.
  bool flag(Keyword k) const { return (*this)[k].flag; }
};

}  // namespace kdt
