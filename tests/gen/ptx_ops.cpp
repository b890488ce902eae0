// Fallback-free PTX for the generator (see ptx_ops.h).
#include "ptx_ops.h"

#include <cmath>
#include <stdexcept>

namespace kdt::gen {

namespace {

using D = DType;

uint64_t f32_minmax(bool max, uint64_t a, uint64_t b) {
  // PTX min/max.f32: a NaN operand is ignored; -0 < +0.
  const double x = as_f64(D::F32, a), y = as_f64(D::F32, b);
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x != y) return (x < y) == max ? b : a;
  return std::signbit(x) == max ? b : a;
}

}  // namespace

const std::vector<PtxOp>& ptx_ops() {
  static const std::vector<PtxOp> ops = {
      {"add.s32", {"add.s32 %o, %a, %b;"}, {D::I32, D::I32}, D::I32},
      {"sub.s32", {"sub.s32 %o, %a, %b;"}, {D::I32, D::I32}, D::I32},
      {"mul.lo.s32", {"mul.lo.s32 %o, %a, %b;"}, {D::I32, D::I32}, D::I32},
      {"mad.lo.s32", {"mad.lo.s32 %o, %a, %b, %a;"}, {D::I32, D::I32}, D::I32},
      {"min.s32", {"min.s32 %o, %a, %b;"}, {D::I32, D::I32}, D::I32},
      {"max.u32", {"max.u32 %o, %a, %b;"}, {D::U32, D::U32}, D::U32},
      {"xor.b32", {"xor.b32 %o, %a, %b;"}, {D::U32, D::U32}, D::U32},
      {"and-or.b32", {"{", ".reg .b32 t;", "and.b32 t, %a, %b;", "or.b32 %o, t, 0x100;", "}"}, {D::I32, D::I32}, D::I32},
      {"shl.b32", {"shl.b32 %o, %a, %b;"}, {D::U32, D::U32}, D::U32},
      {"shr.s32", {"shr.s32 %o, %a, %b;"}, {D::I32, D::U32}, D::I32},
      {"selp.lt.s32", {"{", ".reg .pred %%q;", "setp.lt.s32 %%q, %a, %b;", "selp.s32 %o, %b, %a, %%q;", "}"},
       {D::I32, D::I32}, D::I32},
      {"add.s64", {"add.s64 %o, %a, %b;"}, {D::I64, D::I64}, D::I64},
      {"add.rn.f32", {"add.rn.f32 %o, %a, %b;"}, {D::F32, D::F32}, D::F32},
      {"mul.rn.f32", {"mul.rn.f32 %o, %a, %b;"}, {D::F32, D::F32}, D::F32},
      {"sub.rn.f64", {"sub.rn.f64 %o, %a, %b;"}, {D::F64, D::F64}, D::F64},
      {"min.f32", {"min.f32 %o, %a, %b;"}, {D::F32, D::F32}, D::F32},
      {"max.f32", {"max.f32 %o, %a, %b;"}, {D::F32, D::F32}, D::F32},
      {"neg.f32", {"neg.f32 %o, %a;"}, {D::F32}, D::F32},
      {"cvt.rn.f32.s32", {"cvt.rn.f32.s32 %o, %a;"}, {D::I32}, D::F32},
      {"cvt.rzi.s32.f32", {"cvt.rzi.s32.f32 %o, %a;"}, {D::F32}, D::I32},
      {"cvt.rn.f16.f32", {"cvt.rn.f16.f32 %o, %a;"}, {D::F32}, D::F16},
      {"cvt.f32.bf16", {"cvt.f32.bf16 %o, %a;"}, {D::BF16}, D::F32},
      {"popc.b32", {"popc.b32 %o, %a;"}, {D::U32}, D::U32},
  };
  return ops;
}

uint64_t ptx_apply(const std::string& id, const std::vector<uint64_t>& in) {
  const uint64_t a = in[0], b = in.size() > 1 ? in[1] : 0;
  const int64_t sa = as_i64(D::I32, a), sb = as_i64(D::I32, b);
  const uint64_t ua = a & 0xFFFFFFFFu, ub = b & 0xFFFFFFFFu;
  if (id == "add.s32") return from_int(D::I32, ua + ub);
  if (id == "sub.s32") return from_int(D::I32, ua - ub);
  if (id == "mul.lo.s32") return from_int(D::I32, ua * ub);
  if (id == "mad.lo.s32") return from_int(D::I32, ua * ub + ua);
  if (id == "min.s32") return sa < sb ? a : b;
  if (id == "max.u32") return ua > ub ? a : b;
  if (id == "xor.b32") return ua ^ ub;
  if (id == "and-or.b32") return (ua & ub) | 0x100u;
  if (id == "shl.b32") return ub >= 32 ? 0 : from_int(D::U32, ua << ub);
  if (id == "shr.s32") {
    if (ub >= 32) return sa < 0 ? 0xFFFFFFFFu : 0;
    return from_int(D::I32, static_cast<uint64_t>(sa >> ub));
  }
  if (id == "selp.lt.s32") return sa < sb ? b : a;
  if (id == "add.s64") return a + b;
  if (id == "add.rn.f32" || id == "mul.rn.f32") {
    return from_f64(D::F32, float_op(D::F32, id[0] == 'a' ? BinOp::Add : BinOp::Mul, as_f64(D::F32, a), as_f64(D::F32, b)));
  }
  if (id == "sub.rn.f64") return from_f64(D::F64, as_f64(D::F64, a) - as_f64(D::F64, b));
  if (id == "min.f32") return f32_minmax(false, a, b);
  if (id == "max.f32") return f32_minmax(true, a, b);
  if (id == "neg.f32") return ua ^ 0x80000000u;
  if (id == "cvt.rn.f32.s32") return cast(D::F32, D::I32, a);
  if (id == "cvt.rzi.s32.f32") return cast(D::I32, D::F32, a);
  if (id == "cvt.rn.f16.f32") return cast(D::F16, D::F32, a);
  if (id == "cvt.f32.bf16") return cast(D::F32, D::BF16, a);
  if (id == "popc.b32") {
    uint64_t n = 0;
    for (uint64_t v = ua; v; v &= v - 1) ++n;
    return n;
  }
  throw std::logic_error("unknown PTX op " + id);
}

}  // namespace kdt::gen
