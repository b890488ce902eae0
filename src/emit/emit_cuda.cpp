// The CUDA back end of the compiled path (issue 6). Works on the IR before
// discharge: DMAs stay asynchronous. The mapping (docs/cuda.md):
//   - one `__global__` per kernel; one program = one thread block; the
//     program ids come from the flat blockIdx.x, decomposed over the grid;
//   - scalars are computed redundantly by every thread (so all control flow
//     is block-uniform and barriers may sit anywhere);
//   - every tile value lives in dynamic shared memory; element-wise work is a
//     block-stride loop bracketed by __syncthreads();
//   - reductions over all elements are block reductions (warp shuffles),
//     axis reductions and `dot` give each output element to one thread;
//   - DMAs: bulk copies (cp.async.bulk + mbarrier, bulk groups,
//     cp.reduce.async.bulk .add) on sm_90, cp.async completed on mbarriers
//     on sm_80+, else a cooperative block copy (atomics for add=true into
//     @global); each DMA semaphore keeps an in-flight queue so a wait
//     completes exactly the DMA it retires;
//   - devices(N): peer tables, semaphores in per-device sync buffers,
//     cooperative launches;
//   - a host launcher per kernel.
// The emitter class is in cuda_kernel_emitter.h, its parts in cuda_*.cpp.
#include "kdt/emit/emit_cuda.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <map>

#include "c_types.h"
#include "cuda_bindings.h"
#include "cuda_kernel_emitter.h"
#include "licence.h"
#include "target_names.h"
#include "kdt/runtime/kdt_runtime.h"
#include "kdt/version.h"

namespace kdt {

extern const char* const kCudaPrelude;
extern const char* const kCudaNvshmemPrelude;

namespace cuda {

std::string ctype(DType t) { return emit::c_type(t, "kdt_cu"); }

// Internal names end in `_` so that KD names keep their spelling; no
// flat-only loops (every element loop is a block-stride loop); loads are
// plain reads inside the expression.
const emit::TargetSpelling kCudaSpelling{"kdt_cu", "_", "e", false, false};

int arch_number(const std::string& arch) {
  size_t i = 0;
  while (i < arch.size() && !std::isdigit(static_cast<unsigned char>(arch[i]))) ++i;
  int n = 0;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) n = n * 10 + (arch[i++] - '0');
  return n;
}

namespace {

std::string hex_bits(uint64_t bits, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(bits));
  return buf;
}

std::string float_literal(double v, DType t) {
  if (t == DType::F64) {
    if (std::isnan(v) || std::isinf(v)) {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      return "__longlong_as_double(" + hex_bits(bits, 16) + "ll)";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
  }
  float f = static_cast<float>(v);
  if (std::isnan(f) || std::isinf(f)) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return "__int_as_float(" + hex_bits(bits, 8) + ")";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", static_cast<double>(f));
  return std::string(buf) + "f";
}

}  // namespace

std::string const_literal(const Expr& e) {
  DType t = e.type.dtype;
  switch (t) {
    case DType::Bool: return e.int_value ? "true" : "false";
    case DType::F16: return "kdt_cu::f16_bits(" + hex_bits(kdt_rt::f16_from_f64(e.float_value).bits, 4) + ")";
    case DType::BF16: return "kdt_cu::bf16_bits(" + hex_bits(kdt_rt::bf16_from_f64(e.float_value).bits, 4) + ")";
    case DType::F32:
    case DType::F64: return float_literal(e.float_value, t);
    case DType::I64:
      if (e.int_value == INT64_MIN) return "int64_t(-9223372036854775807ll - 1)";
      return "int64_t(" + std::to_string(e.int_value) + "ll)";
    case DType::U64: return "uint64_t(" + std::to_string(static_cast<uint64_t>(e.int_value)) + "ull)";
    case DType::I32:
      if (e.int_value == INT32_MIN) return "int32_t(-2147483647 - 1)";
      return "int32_t(" + std::to_string(e.int_value) + ")";
    case DType::U32: return "uint32_t(" + std::to_string(static_cast<uint32_t>(e.int_value)) + "u)";
    default: return ctype(t) + "(" + std::to_string(e.int_value) + ")";
  }
}

}  // namespace cuda

namespace {

// Every kernel's launcher and its constants share the kdt_kernels
// namespace: a kernel spelled like a name the output declares for another
// (`a_threads` beside `a`) would clash there.
bool launch_names_distinct(const ir::Module& module, DiagnosticEngine& diags) {
  static const char* const kDeclaredFor[] = {"_kernel", "_threads", "_blocks",  "_shared_bytes",
                                             "_devices", "_sync_bytes", "_peers", "_tensor_maps"};
  std::map<std::string, const ir::Kernel*> declared;
  for (const ir::Kernel& k : module.kernels) {
    for (const char* suffix : kDeclaredFor) declared.emplace(emit::target_name(k.name) + suffix, &k);
  }
  bool ok = true;
  for (const ir::Kernel& k : module.kernels) {
    auto found = declared.find(emit::target_name(k.name));
    if (found == declared.end()) continue;
    diags.report(DiagCode::InvalidDeclaration, k.range,
                 "the CUDA output declares `" + found->first + "` for kernel `" + found->second->kd_name +
                     "` (its launch constants, kernel function and types are named after it), so kernel `" + k.kd_name +
                     "` cannot have that name there; rename one of the two kernels");
    ok = false;
  }
  return ok;
}

}  // namespace

std::string cuda_ffi_refusal(const ir::Kernel& kernel) {
  if (kernel.devices <= 1) return "";
  // JAX gives a handler one device's buffers and stream; a devices(N)
  // kernel needs N devices' programs running together (issue 19, item 7).
  return "kernel `" + kernel.kd_name + "` has devices(" + std::to_string(kernel.devices) +
         "): the CUDA XLA FFI handler runs single-device kernels; pick another with --kernel, or use the CPU handler "
         "(--emit=xla-ffi)";
}

bool emit_cuda(const ir::Module& module, const SourceManager& sources, const CudaEmitOptions& options,
               DiagnosticEngine& diags, std::string& out) {
  if (!launch_names_distinct(module, diags)) return false;
  emit::CodeWriter w(sources);
  w.line("// Generated by kdt " KDT_VERSION " from " + emit::CodeWriter::comment(options.input_name) + " for " + options.arch + ". Do not edit.");
  emit::write_licence(w);
  if (options.nvshmem) {
    w.line("// Build: nvcc -std=c++17 -rdc=true -arch=" + options.arch + " -I NVSHMEM/include -c FILE.cu; link with");
    w.line("// -L NVSHMEM/lib -lnvshmem_host -lnvshmem_device (--devices=nvshmem: docs/distributed.md)");
  } else {
    w.line("// Build: nvcc -std=c++17 -arch=" + options.arch + " -c FILE.cu   (or NVRTC: kdt --emit=ptx)");
  }
  w.line("// The kdt CUDA runtime (include/kdt/runtime/cuda/kdt_cuda.h) is embedded below.");
  if (options.debug) {
    w.line("// --cuda-debug: every wait is bounded and fails naming its KD statement; a tensor map the driver");
    w.line("// refuses is said on stderr (its DMAs then copy row by row).");
    w.line("#define KDT_CU_DEBUG 1");
  }
  w.set_line_directives(false);
  w.raw(kCudaPrelude);
  if (options.nvshmem) w.raw(kCudaNvshmemPrelude);
  w.line();
  w.line("// ===== kernels =====");
  w.line("namespace kdt_kernels {");
  w.line();
  bool ok = true;
  for (const ir::Kernel& k : module.kernels) {
    emit::CodeWriter kw(sources);
    if (cuda::KernelEmitter(k, sources, options, diags, kw).emit()) w.raw(kw.str());
    else ok = false;
  }
  w.line("}  // namespace kdt_kernels");
  if (!ok) return false;
  if (options.binding == "xla-ffi") {
    w.line();
    emit::emit_cuda_xla_ffi(module, options, w);
  }
  out = emit::resolve_generated_lines(w.str(), options.output_name);
  return true;
}

}  // namespace kdt
