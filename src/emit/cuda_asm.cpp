// The CUDA back end: inline PTX as `asm volatile`, operands renamed to %N
// and given constraint letters by PTX width (docs/cuda.md, "Inline PTX").
#include <cctype>
#include <map>

#include "cuda_kernel_emitter.h"

namespace kdt::cuda {

const char* KernelEmitter::constraint(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::I32:
    case DType::U32: return "r";
    case DType::I8:
    case DType::U8:
    case DType::I16:
    case DType::U16:
    case DType::F16:
    case DType::BF16: return "h";
    case DType::I64:
    case DType::U64: return "l";
    case DType::F32: return "f";
    case DType::F64: return "d";
  }
  return "r";
}

std::string KernelEmitter::carrier(DType t) {
  std::string c = constraint(t);
  if (c == "h") return "unsigned short";
  if (c == "r") return "unsigned int";
  if (c == "l") return "unsigned long long";
  if (c == "f") return "float";
  return "double";
}

std::string KernelEmitter::to_carrier(DType t, const std::string& v) {
  if (t == DType::F16) return "__half_as_ushort(" + v + ")";
  if (t == DType::BF16) return "__bfloat16_as_ushort(" + v + ")";
  if (t == DType::F32 || t == DType::F64) return v;
  // Sign-extended, as the C++ path's PTX emulation and ld.s8 extend an i8 (docs/ptx.md).
  if (t == DType::I8) return "static_cast<unsigned short>(static_cast<int16_t>(" + v + "))";
  return "static_cast<" + carrier(t) + ">(" + v + ")";
}

std::string KernelEmitter::from_carrier(DType t, const std::string& v) {
  if (t == DType::F16) return "__ushort_as_half(" + v + ")";
  if (t == DType::BF16) return "__ushort_as_bfloat16(" + v + ")";
  if (t == DType::Bool) return "(" + v + " != 0u)";
  if (t == DType::F32 || t == DType::F64) return v;
  return "static_cast<" + cuda::ctype(t) + ">(" + v + ")";
}

std::string KernelEmitter::asm_template(const ir::AsmBlock& a) {
  std::map<std::string, int> num;
  int n = 0;
  for (const std::string& o : a.output_names) num[o] = n++;
  for (const std::string& i : a.input_names) num[i] = n++;
  std::string body;
  const std::string& p = a.ptx;
  for (size_t i = 0; i < p.size();) {
    if (p[i] == '%') {
      if (i + 1 < p.size() && p[i + 1] == '%') {
        body += "%%";
        i += 2;
        continue;
      }
      size_t j = i + 1;
      while (j < p.size() && (std::isalnum(static_cast<unsigned char>(p[j])) || p[j] == '_')) ++j;
      std::string name = p.substr(i + 1, j - i - 1);
      auto it = num.find(name);
      body += it != num.end() ? "%" + std::to_string(it->second) : "%%" + name;
      i = j;
      continue;
    }
    body += p[i++];
  }
  // One C string per PTX line, inside a `{ }` scope for `.reg` declarations.
  std::string out = "\"{\\n\\t\"";
  size_t start = 0;
  while (start <= body.size()) {
    size_t nl = body.find('\n', start);
    std::string line = body.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    out += "\n      \"" + emit::CodeWriter::escape(line) + "\\n\\t\"";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  out += "\n      \"}\"";
  return out;
}

void KernelEmitter::asm_stmt(const ir::Stmt& s) {
  const ir::AsmBlock& a = k_.asms[s.asm_id];
  std::vector<std::string> outs;
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    std::string name = "asm" + std::to_string(s.asm_id) + "_" + a.output_names[i];
    outs.push_back(name);
    DType t = a.outputs[i].second;
    if (a.shape.empty()) {
      w_.line(ctype(t) + " " + name + " = " + ctype(t) + "();");
    } else {
      int64_t off = alloc(count_of(a.shape) * elem_size(t));
      w_.line(ctype(t) + "* const " + name + " = " + smem_ptr(t, off) + ";");
    }
  }
  asm_outputs_[s.asm_id] = outs;
  int64_t mark = top_;
  std::vector<const Expr*> inputs;
  for (const ir::ExprPtr& v : a.input_values) {
    prepare(*v);
    inputs.push_back(v.get());
  }
  LoopCtx ctx = element_loop(a.shape, "", inputs);
  // A scalar asm runs once per program, as on the C++ path (issue 19, item
  // 4): thread 0 runs it and the outputs reach every thread through shared
  // memory. Were every thread to run it, a thread-varying result (%laneid,
  // %clock) would make the block-uniform control flow around
  // __syncthreads() diverge.
  const int64_t broadcast = a.shape.empty() ? alloc(static_cast<int64_t>(a.outputs.size()) * 8 + 8) : 0;
  if (a.shape.empty()) {
    w_.open("{");
    w_.line("__syncthreads();  // the broadcast slots may still be read by an earlier statement");
    w_.open("if (kdt_tid == 0) {");
  } else {
    open_loop(ctx);
  }
  std::string outs_c, ins_c;
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    DType t = a.outputs[i].second;
    w_.line(carrier(t) + " o" + std::to_string(i) + "_;");
    outs_c += (outs_c.empty() ? "" : ", ") + std::string("\"=") + constraint(t) + "\"(o" + std::to_string(i) + "_)";
  }
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    DType t = a.inputs[i].second;
    std::string v = elem(*a.input_values[i], ctx);
    if (a.input_values[i]->type.dtype != t) v = "kdt_cu::convert<" + ctype(t) + ">(" + v + ")";
    w_.line("const " + carrier(t) + " i" + std::to_string(i) + "_ = " + to_carrier(t, v) + ";");
    ins_c += (ins_c.empty() ? "" : ", ") + std::string("\"") + constraint(t) + "\"(i" + std::to_string(i) + "_)";
  }
  bool memory = a.is_volatile;
  for (const std::string& c : a.clobbers) memory = memory || c == "memory";
  std::string text = "asm volatile(" + asm_template(a) + "\n      : " + outs_c + "\n      : " + ins_c;
  if (memory) text += "\n      : \"memory\"";
  text += ");";
  w_.line(text);
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    DType t = a.outputs[i].second;
    std::string value = from_carrier(t, "o" + std::to_string(i) + "_");
    if (a.shape.empty()) w_.line(smem_ptr(t, broadcast + 8 * static_cast<int64_t>(i)) + "[0] = " + value + ";");
    else w_.line(outs[i] + "[" + ctx.flat + "] = " + value + ";");
  }
  if (a.shape.empty()) {
    w_.close();
    barrier();
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      w_.line(outs[i] + " = " + smem_ptr(a.outputs[i].second, broadcast + 8 * static_cast<int64_t>(i)) + "[0];");
    }
    w_.line("__syncthreads();  // every thread has read them before the slots are reused");
    w_.close();
  } else {
    close_loop(ctx);
  }
  top_ = mark;
}

}  // namespace kdt::cuda
