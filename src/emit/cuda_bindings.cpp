// The XLA FFI handlers of the CUDA output (cuda_bindings.h). A handler gets
// XLA's stream from the call frame and launches the kernel on it with the
// launcher the CUDA emitter wrote (`kdt_kernels::NAME(..., stream)`):
// nothing synchronises, XLA orders the work on its stream. An `inout`
// whose result XLA did not alias is copied on the same stream first. A
// failed launch is an ffi::Error naming the kernel; a trap inside the
// kernel (a bounded wait, a full DMA queue) surfaces as CUDA's sticky
// error at XLA's next synchronisation (docs/python.md).
#include "cuda_bindings.h"

#include "binding_common.h"
#include "c_types.h"
#include "target_names.h"

namespace kdt::emit {

void emit_cuda_xla_ffi(const ir::Module& module, const CudaEmitOptions& options, CodeWriter& w) {
  w.line("// ===== XLA FFI handlers for the CUDA platform (--emit=cuda-xla-ffi, docs/c-api.md) =====");
  w.line("// One handler per kernel, `kdt_xla_cuda_KERNEL`, for jax.ffi.register_ffi_target(platform=\"CUDA\").");
  w.line("// Compile with nvcc and the headers jaxlib ships: -isystem $(python -c 'import jax; print(jax.ffi.include_dir())').");
  w.line("#ifndef __CUDACC_RTC__");
  w.line("#include \"xla/ffi/api/ffi.h\"");
  w.line();
  w.line("// The kernels of this file, their parameters (kind, dtype, the shape a caller passes) and the binding.");
  w.line("extern \"C\" __attribute__((visibility(\"default\"))) const char* kdt_module_json(void) {");
  w.line("  return \"" +
         CodeWriter::escape(module_json(module, false, options.input_name, "cuda-xla-ffi", "kdt_xla_cuda_")) + "\";");
  w.line("}");
  w.line();
  w.line("namespace kdt_bind {");
  w.line("namespace ffi = xla::ffi;");
  emit_ffi_fits(w);
  w.line("// A CUDA error as the FFI error JAX raises.");
  w.open("static ffi::Error cuda_error(const char* kernel, const char* what, cudaError_t e) {");
  w.line("return ffi::Error(ffi::ErrorCode::kInternal, std::string(\"kdt: kernel `\") + kernel + \"`: \" + what + \": \" +");
  w.line("                  cudaGetErrorName(e) + \" (\" + cudaGetErrorString(e) + \")\");");
  w.close();
  w.line("}  // namespace kdt_bind");
  w.line();
  for (const ir::Kernel& k : module.kernels) {
    const TargetNames names(k);
    FfiSignature sig = ffi_signature(k, "kdt_cu");
    sig.params.insert(sig.params.begin(), "cudaStream_t stream");
    const std::string impl = "kdt_xla_cuda_" + k.kd_name + "_impl";
    const std::string kernel = "\"" + k.kd_name + "\"";
    open_ffi_impl(k, impl, sig, w);
    for (const auto& [out, in] : sig.inouts) {
      w.open("if (" + out + "->untyped_data() != " + in + ".untyped_data()) {");
      w.line("cudaError_t e = cudaMemcpyAsync(" + out + "->untyped_data(), " + in + ".untyped_data(), " + in +
             ".size_bytes(), cudaMemcpyDeviceToDevice, stream);");
      w.line("if (e != cudaSuccess) return kdt_bind::cuda_error(" + kernel + ", \"copying an inout buffer\", e);");
      w.close();
    }
    std::string call;
    size_t next_scalar = 0;
    for (size_t p = 0; p < k.params.size(); ++p) {
      auto [is_ref, i] = k.params[p];
      call += call.empty() ? "" : ", ";
      if (is_ref) {
        const ir::Ref& r = k.refs[i];
        call += "static_cast<" + std::string(r.writable ? "" : "const ") + c_type(r.dtype, "kdt_cu") + "*>(" +
                sig.data[p] + ")";
        continue;
      }
      const auto& [name, dtype] = sig.scalars[next_scalar++];
      std::string value = name + "_attr";
      if (dtype == DType::F16) value = "kdt_cu::f16(__float2half_rn(" + value + "))";
      if (dtype == DType::BF16) value = "kdt_cu::bf16(__float2bfloat16_rn(" + value + "))";
      call += value;
    }
    w.line("cudaError_t e = kdt_kernels::" + names.kernel + "(" + call + (call.empty() ? "" : ", ") + "stream);");
    w.line("if (e != cudaSuccess) return kdt_bind::cuda_error(" + kernel + ", \"launch\", e);");
    w.line("return kdt_bind::ffi::Error::Success();");
    w.close();
    w.line("XLA_FFI_DEFINE_HANDLER_SYMBOL(kdt_xla_cuda_" + k.kd_name + ", " + impl + ", " +
           ffi_bind_chain(".Ctx<kdt_bind::ffi::PlatformStream<cudaStream_t>>()", sig.binds) + ");");
    w.line();
  }
  w.line("#endif  // __CUDACC_RTC__");
}

}  // namespace kdt::emit
