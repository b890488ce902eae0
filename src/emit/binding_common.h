// What the bindings of both paths share (issue 18): the module's JSON
// description (`kdt_module_json()`, read by the Python package), the shape
// a caller passes for a ref, and the XLA FFI spelling of dtypes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "code_writer.h"
#include "kdt/ir/ir.h"

namespace kdt::emit {

// A ref parameter's shape as the caller passes it: the mesh (two or more
// axes) or [devices] (devices(N), N > 1) first, as `kdt run` reads .npy files.
Shape caller_shape(const ir::Kernel& k, const ir::Ref& r);

// "in", "out" or "inout".
const char* param_kind(const ir::Ref& r);

// The JSON of `kdt_module_json()`: every kernel, its parameters and the
// symbol `symbol_prefix + name` that calls it.
std::string module_json(const ir::Module& module, bool checks, const std::string& source, const std::string& binding,
                        const std::string& symbol_prefix);

// The `xla::ffi::DataType` enumerator of a dtype ("F32", "BF16", ...).
const char* xla_type(DType t);

// A scalar parameter's attribute type: f16 and bf16 come as f32 (exact:
// every f16 and bf16 value is an f32), the others as themselves; `ns` is
// the runtime namespace of the path (kdt_rt, kdt_cu).
std::string attr_type(DType t, const std::string& ns);

}  // namespace kdt::emit

namespace kdt::emit {

// An XLA FFI handler's buffers and attributes for one kernel, as both
// paths bind them. Buffers: every `in` and `inout` ref, in order; results:
// every `inout` and `out` ref, in order (an inout is aliased to its result
// and copied into it when XLA gave it another buffer); attributes: the
// scalars by KD name. Each path adds its own context and attributes.
struct FfiSignature {
  std::vector<std::string> params;  // the implementation's parameters (`kdt_bind::ffi::` types)
  std::vector<std::string> binds;   // `.Arg<...>()`, `.Ret<...>()`, `.Attr<...>("name")`, in that order
  std::string fits;                 // every buffer has its parameter's dtype and size ("" without refs)
  std::vector<std::string> data;    // per KD parameter: a ref's data pointer (scalars: "")
  // Per inout ref: its result's and its argument's buffer names.
  std::vector<std::pair<std::string, std::string>> inouts;
  // Per scalar parameter (KD order): its name (the attribute is NAME_attr) and dtype.
  std::vector<std::pair<std::string, DType>> scalars;
};

// `ns` is the runtime namespace of the path (kdt_rt, kdt_cu).
FfiSignature ffi_signature(const ir::Kernel& k, const std::string& ns);

// The implementation's parameter list and the handler's binding chain
// (`kdt_bind::ffi::Ffi::Bind()` + `context` + the binds).
std::string ffi_parameters(const std::vector<std::string>& params);
std::string ffi_bind_chain(const std::string& context, const std::vector<std::string>& binds);

// `kdt_bind::fits(buffer, type, count)`, which the handlers' checks call
// (inside namespace kdt_bind, with `ffi` = xla::ffi).
void emit_ffi_fits(CodeWriter& w);

// A handler's implementation `impl` opened: its parameters, then the
// check that every buffer has its parameter's dtype and size.
void open_ffi_impl(const ir::Kernel& k, const std::string& impl, const FfiSignature& sig, CodeWriter& w);

}  // namespace kdt::emit
