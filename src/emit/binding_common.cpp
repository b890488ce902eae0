// What the bindings of both paths share (binding_common.h).
#include "binding_common.h"

#include <nlohmann/json.hpp>

#include "c_types.h"
#include "loop_shapes.h"
#include "target_names.h"

namespace kdt::emit {

Shape caller_shape(const ir::Kernel& k, const ir::Ref& r) {
  Shape shape;
  if (k.mesh.size() >= 2) shape = k.mesh;
  else if (k.devices > 1) shape = {k.devices};
  shape.insert(shape.end(), r.shape.begin(), r.shape.end());
  return shape;
}

const char* param_kind(const ir::Ref& r) { return !r.is_output ? "in" : r.starts_uninitialized ? "out" : "inout"; }

std::string module_json(const ir::Module& module, bool checks, const std::string& source, const std::string& binding,
                        const std::string& symbol_prefix) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const ir::Kernel& k : module.kernels) {
    nlohmann::json params = nlohmann::json::array();
    for (auto [is_ref, i] : k.params) {
      if (is_ref) {
        const ir::Ref& r = k.refs[i];
        params.push_back({{"name", r.kd_name}, {"kind", param_kind(r)}, {"dtype", std::string(dtype_name(r.dtype))},
                          {"shape", caller_shape(k, r)}});
      } else {
        const ir::ScalarParam& s = k.scalars[i];
        params.push_back({{"name", s.kd_name}, {"kind", "scalar"}, {"dtype", std::string(dtype_name(s.dtype))}});
      }
    }
    kernels.push_back({{"name", k.kd_name}, {"symbol", symbol_prefix + k.kd_name}, {"grid", k.grid},
                       {"devices", k.devices}, {"mesh", k.mesh}, {"params", params}});
  }
  nlohmann::json doc = {{"abi", 1}, {"binding", binding}, {"checks", checks}, {"source", source}, {"kernels", kernels}};
  return doc.dump();
}

const char* xla_type(DType t) {
  switch (t) {
    case DType::Bool: return "PRED";
    case DType::I8: return "S8";
    case DType::I16: return "S16";
    case DType::I32: return "S32";
    case DType::I64: return "S64";
    case DType::U8: return "U8";
    case DType::U16: return "U16";
    case DType::U32: return "U32";
    case DType::U64: return "U64";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::F32: return "F32";
    case DType::F64: return "F64";
  }
  return "INVALID";
}

std::string attr_type(DType t, const std::string& ns) {
  if (t == DType::F16 || t == DType::BF16) return "float";
  return c_type(t, ns);
}

}  // namespace kdt::emit

namespace kdt::emit {

FfiSignature ffi_signature(const ir::Kernel& k, const std::string& ns) {
  const TargetNames names(k);
  FfiSignature s;
  s.data.resize(k.params.size());
  std::vector<std::string> args, rets, attrs, fits;
  auto fit = [&](const std::string& buffer, const ir::Ref& r) {
    fits.push_back("kdt_bind::fits(" + buffer + ", kdt_bind::ffi::DataType::" + xla_type(r.dtype) + ", " +
                   std::to_string(count_of(caller_shape(k, r))) + ")");
  };
  for (size_t p = 0; p < k.params.size(); ++p) {
    auto [is_ref, i] = k.params[p];
    if (!is_ref || (k.refs[i].is_output && k.refs[i].starts_uninitialized)) continue;
    const std::string buffer = names.refs[i] + "_in";
    s.params.push_back("kdt_bind::ffi::AnyBuffer " + buffer);
    args.push_back(".Arg<kdt_bind::ffi::AnyBuffer>()");
    fit(buffer, k.refs[i]);
    s.data[p] = buffer + ".untyped_data()";
  }
  for (size_t p = 0; p < k.params.size(); ++p) {
    auto [is_ref, i] = k.params[p];
    if (!is_ref || !k.refs[i].is_output) continue;
    const std::string buffer = names.refs[i] + "_out";
    s.params.push_back("kdt_bind::ffi::Result<kdt_bind::ffi::AnyBuffer> " + buffer);
    rets.push_back(".Ret<kdt_bind::ffi::AnyBuffer>()");
    fit("*" + buffer, k.refs[i]);
    s.data[p] = buffer + "->untyped_data()";
    if (!k.refs[i].starts_uninitialized) s.inouts.emplace_back(buffer, names.refs[i] + "_in");
  }
  for (size_t p = 0; p < k.params.size(); ++p) {
    auto [is_ref, i] = k.params[p];
    if (is_ref) continue;
    const ir::ScalarParam& scalar = k.scalars[i];
    const std::string attr = names.scalars[i] + "_attr";
    s.params.push_back(attr_type(scalar.dtype, ns) + " " + attr);
    attrs.push_back(".Attr<" + attr_type(scalar.dtype, ns) + ">(\"" + scalar.kd_name + "\")");
    s.scalars.emplace_back(names.scalars[i], scalar.dtype);
  }
  for (const auto* list : {&args, &rets, &attrs}) s.binds.insert(s.binds.end(), list->begin(), list->end());
  for (const std::string& f : fits) s.fits += (s.fits.empty() ? "" : " && ") + f;
  return s;
}

std::string ffi_parameters(const std::vector<std::string>& params) {
  std::string out;
  for (const std::string& p : params) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string ffi_bind_chain(const std::string& context, const std::vector<std::string>& binds) {
  std::string out = "kdt_bind::ffi::Ffi::Bind()" + context;
  for (const std::string& b : binds) out += b;
  return out;
}

void emit_ffi_fits(CodeWriter& w) {
  w.line("// A buffer of the wrong type or size (a caller that bypassed kdt.jax's checks).");
  w.open("static bool fits(const ffi::AnyBuffer& b, ffi::DataType type, size_t count) {");
  w.line("return b.element_type() == type && b.element_count() == count;");
  w.close();
}

void open_ffi_impl(const ir::Kernel& k, const std::string& impl, const FfiSignature& sig, CodeWriter& w) {
  w.line("// Kernel `" + k.kd_name + "`.");
  w.open("static kdt_bind::ffi::Error " + impl + "(" + ffi_parameters(sig.params) + ") {");
  if (sig.fits.empty()) return;
  w.open("if (!(" + sig.fits + ")) {");
  w.line("return kdt_bind::ffi::Error(kdt_bind::ffi::ErrorCode::kInvalidArgument, \"kdt: kernel `" + k.kd_name +
         "` was called with buffers of other dtypes or sizes than its parameters\");");
  w.close();
}

}  // namespace kdt::emit
