// The bindings of emitted C++ (issue 18): `--emit=c-api`, an `extern "C"`
// entry per kernel over pointers (docs/c-api.md), and `--emit=xla-ffi`, an
// XLA FFI handler per kernel for the CPU (buffers in and out, scalars and
// run options as attributes). Both describe the module in one JSON string,
// `kdt_module_json()`, which the Python package reads.
#include "cpp_bindings.h"

#include "binding_common.h"
#include "c_types.h"
#include "loop_shapes.h"
#include "target_names.h"

namespace kdt::emit {

namespace {

std::string c_type(DType t) { return emit::c_type(t, "kdt_rt"); }

// The kernel's call from per-parameter data pointers: `data(i)` is the
// address of parameter i's first element (a ref) or of its value (a
// scalar), as a `void*` expression. With devices(N), N > 1, each ref
// becomes N pointers, one per device's slice.
void emit_kernel_call(const ir::Kernel& k, const std::function<std::string(size_t)>& data, CodeWriter& w) {
  const TargetNames names(k);
  std::string call;
  for (size_t p = 0; p < k.params.size(); ++p) {
    auto [is_ref, i] = k.params[p];
    if (!call.empty()) call += ", ";
    if (is_ref) {
      const ir::Ref& r = k.refs[i];
      std::string T = std::string(r.writable ? "" : "const ") + c_type(r.dtype);
      const std::string& name = names.refs[i];
      w.line(T + "* " + name + " = static_cast<" + T + "*>(" + data(p) + ");");
      if (k.devices > 1) {
        w.line("std::vector<" + T + "*> " + name + "_devices_;");
        w.line("for (int64_t d = 0; d < " + std::to_string(k.devices) + "; ++d) " + name + "_devices_.push_back(" +
               name + " + d * " + std::to_string(count_of(r.shape)) + ");");
        call += name + "_devices_.data()";
      } else {
        call += name;
      }
    } else {
      const ir::ScalarParam& s = k.scalars[i];
      w.line("const " + c_type(s.dtype) + " " + names.scalars[i] + " = *static_cast<const " + c_type(s.dtype) + "*>(" +
             data(p) + ");");
      call += names.scalars[i];
    }
  }
  w.line("kdt_rt::RunError failure;");
  w.line("int status = kdt_bind::launch(failure, [&](kdt_rt::RunError& e) { return kdt_kernels::" + names.kernel +
         "(" + call + (call.empty() ? "" : ", ") + "run, &e); });");
}

// What both bindings share: the module's description and the launch that
// turns every exception into a failure (bad_alloc of a huge launch, ...).
void emit_common(const ir::Module& module, const CppEmitOptions& options, const std::string& binding, CodeWriter& w) {
  w.line("namespace kdt_bind {");
  w.line("// Runs a launch; an exception (memory, threads) is a failure too, never an abort of the caller.");
  w.line("template <class Launch>");
  w.open("int launch(kdt_rt::RunError& failure, Launch&& run) {");
  w.open("try {");
  w.line("return run(failure);");
  w.reopen("} catch (const std::exception& x) {");
  w.line("failure.code = kdt_rt::Code::LimitExceeded;");
  w.line("failure.message = std::string(\"the launch ran out of resources (\") + x.what() + \")\";");
  w.line("return 1;");
  w.close();
  w.close();
  w.line("}  // namespace kdt_bind");
  w.line();
  w.line("// The kernels of this file, their parameters (kind, dtype, the shape a caller passes) and the binding.");
  w.line("extern \"C\" __attribute__((visibility(\"default\"))) const char* kdt_module_json(void) {");
  w.line("  return \"" + CodeWriter::escape(module_json(module, options.checks, options.input_name, binding, binding == "c-api" ? "kdt_call_" : "kdt_xla_")) + "\";");
  w.line("}");
  w.line();
}

}  // namespace

void emit_c_api(const ir::Module& module, const CppEmitOptions& options, CodeWriter& w) {
  w.line("// ===== C ABI (--emit=c-api, docs/c-api.md) =====");
  w.line("// int kdt_call_KERNEL(void* const* args, const struct kdt_options* options, struct kdt_error* error):");
  w.line("// args[i] is parameter i's first element (a ref: row-major, devices first) or its value (a scalar).");
  w.line("// Returns 0, 1 when a run-time check failed (*error says which, where), 2 for bad options.");
  w.line("extern \"C\" {");
  w.line("struct kdt_options {");
  w.line("  uint32_t size;          // sizeof(struct kdt_options): the ABI's version check");
  w.line("  int32_t dma_mode;       // 0 on_wait, 1 eager");
  w.line("  int32_t dma_order;      // 0 fifo, 1 lifo, 2 shuffle");
  w.line("  int32_t program_order;  // 0 forward, 1 reverse, 2 shuffle");
  w.line("  int32_t jobs;           // threads for the programs (1 to 4096)");
  w.line("  uint32_t reserved;      // 0");
  w.line("  uint64_t seed;          // for the shuffle orders");
  w.line("};");
  w.line("struct kdt_error {");
  w.line("  char code[64];          // the diagnostic code (\"race\", \"out-of-bounds\", ...), \"\" after a success");
  w.line("  char file[1024];        // the KD file, line and column of the failure");
  w.line("  int32_t line;");
  w.line("  int32_t column;");
  w.line("  char message[4096];");
  w.line("  char json[16384];       // the diagnostic as JSON, with its notes (\"\" if it would not fit)");
  w.line("};");
  w.line("__attribute__((visibility(\"default\"))) int kdt_abi_version(void) { return 1; }");
  w.line("}  // extern \"C\"");
  w.line();
  emit_common(module, options, "c-api", w);
  w.line("namespace kdt_bind {");
  w.line("// Copies `text` into `to` (a field of `size` bytes), cut to fit, NUL-terminated.");
  w.open("static void copy(char* to, size_t size, const std::string& text) {");
  w.line("size_t n = text.size() < size ? text.size() : size - 1;");
  w.line("std::memcpy(to, text.data(), n);");
  w.line("to[n] = 0;");
  w.close();
  w.line("// Fills *error (when given) with `failure`, or empties it after a success.");
  w.open("static void report(int status, const kdt_rt::RunError& failure, kdt_error* error) {");
  w.line("if (!error) return;");
  w.open("if (status == 0) {");
  w.line("error->code[0] = error->file[0] = error->message[0] = error->json[0] = 0;");
  w.line("error->line = error->column = 0;");
  w.line("return;");
  w.close();
  w.line("const kdt_rt::RunError e = kdt_rt::with_call_notes(failure);");
  w.line("copy(error->code, sizeof error->code, e.code.name());");
  w.line("copy(error->file, sizeof error->file, e.loc.file ? e.loc.file : \"\");");
  w.line("error->line = e.loc.line;");
  w.line("error->column = e.loc.column;");
  w.line("copy(error->message, sizeof error->message, e.message);");
  w.line("const std::string json = kdt_rt::failure_json(e);");
  w.line("copy(error->json, sizeof error->json, json.size() < sizeof error->json ? json : std::string());");
  w.close();
  w.line("// The run options from the caller's struct; false (with *error) when they are not valid.");
  w.open("static bool options(const kdt_options* given, kdt_rt::RunOptions& run, kdt_error* error) {");
  w.line("if (!given) return true;");
  w.line("const char* problem = nullptr;");
  w.line("if (given->size != sizeof(kdt_options)) problem = \"struct kdt_options has the wrong size (another ABI version)\";");
  w.line("else if (given->dma_mode < 0 || given->dma_mode > 1) problem = \"dma_mode must be 0 (on_wait) or 1 (eager)\";");
  w.line("else if (given->dma_order < 0 || given->dma_order > 2) problem = \"dma_order must be 0, 1 or 2\";");
  w.line("else if (given->program_order < 0 || given->program_order > 2) problem = \"program_order must be 0, 1 or 2\";");
  w.line("else if (given->jobs < 1 || given->jobs > 4096) problem = \"jobs must be from 1 to 4096\";");
  w.open("if (problem) {");
  w.open("if (error) {");
  w.line("report(1, kdt_rt::RunError{kdt_rt::Code::CommandLine, problem, kdt_rt::SourceLoc{\"\", 0, 0, 0, 0}, {}}, error);");
  w.close();
  w.line("return false;");
  w.close();
  w.line("run.eager_dma = given->dma_mode == 1;");
  w.line("run.dma_order = given->dma_order;");
  w.line("run.program_order = given->program_order;");
  w.line("run.jobs = given->jobs;");
  w.line("run.seed = given->seed;");
  w.line("return true;");
  w.close();
  w.line("}  // namespace kdt_bind");
  w.line();
  for (const ir::Kernel& k : module.kernels) {
    w.line("// Kernel `" + k.kd_name + "`.");
    w.open("extern \"C\" __attribute__((visibility(\"default\"))) int kdt_call_" + k.kd_name +
           "(void* const* args, const kdt_options* options, kdt_error* error) {");
    w.line("kdt_rt::RunOptions run;");
    w.line("if (!kdt_bind::options(options, run, error)) return 2;");
    emit_kernel_call(k, [](size_t p) { return "args[" + std::to_string(p) + "]"; }, w);
    w.line("kdt_bind::report(status, failure, error);");
    w.line("return status;");
    w.close();
    w.line();
  }
}

void emit_xla_ffi(const ir::Module& module, const CppEmitOptions& options, CodeWriter& w) {
  w.line("// ===== XLA FFI handlers (--emit=xla-ffi, docs/c-api.md) =====");
  w.line("// One handler per kernel, `kdt_xla_KERNEL`, for jax.ffi.register_ffi_target(platform=\"cpu\"). Compile");
  w.line("// with the headers jaxlib ships: -isystem $(python -c 'import jax; print(jax.ffi.include_dir())').");
  w.line("#include \"xla/ffi/api/ffi.h\"");
  w.line();
  emit_common(module, options, "xla-ffi", w);
  w.line("namespace kdt_bind {");
  w.line("namespace ffi = xla::ffi;");
  w.line("// A failure as the FFI error JAX raises: the message, then the diagnostic's JSON on a line of its own.");
  w.open("static ffi::Error error_of(const kdt_rt::RunError& failure) {");
  w.line("const kdt_rt::RunError e = kdt_rt::with_call_notes(failure);");
  w.line("return ffi::Error(ffi::ErrorCode::kInvalidArgument, std::string(e.loc.file ? e.loc.file : \"\") + \":\" +");
  w.line("                  std::to_string(e.loc.line) + \":\" + std::to_string(e.loc.column) + \": \" + e.message + \" [\" +");
  w.line("                  e.code.name() + \"]\\nkdt-diagnostic: \" + kdt_rt::failure_json(e));");
  w.close();
  emit_ffi_fits(w);
  w.line("// The run options from the call's attributes.");
  w.open("static bool options(int32_t dma_mode, int32_t dma_order, int32_t program_order, int32_t jobs, int64_t seed, kdt_rt::RunOptions& run) {");
  w.line("if (dma_mode < 0 || dma_mode > 1 || dma_order < 0 || dma_order > 2 || program_order < 0 || program_order > 2) return false;");
  w.line("if (jobs < 1 || jobs > 4096) return false;");
  w.line("run.eager_dma = dma_mode == 1;");
  w.line("run.dma_order = dma_order;");
  w.line("run.program_order = program_order;");
  w.line("run.jobs = jobs;");
  w.line("run.seed = static_cast<uint64_t>(seed);");
  w.line("return true;");
  w.close();
  w.line("}  // namespace kdt_bind");
  w.line();
  for (const ir::Kernel& k : module.kernels) {
    FfiSignature sig = ffi_signature(k, "kdt_rt");
    for (const char* option : {"kdt_dma_mode", "kdt_dma_order", "kdt_program_order", "kdt_jobs"}) {
      sig.params.push_back(std::string("int32_t ") + option);
      sig.binds.push_back(std::string(".Attr<int32_t>(\"") + option + "\")");
    }
    sig.params.push_back("int64_t kdt_seed");
    sig.binds.push_back(".Attr<int64_t>(\"kdt_seed\")");

    std::string impl = "kdt_xla_" + k.kd_name + "_impl";
    open_ffi_impl(k, impl, sig, w);
    w.line("kdt_rt::RunOptions run;");
    w.open("if (!kdt_bind::options(kdt_dma_mode, kdt_dma_order, kdt_program_order, kdt_jobs, kdt_seed, run)) {");
    w.line("return kdt_bind::ffi::Error(kdt_bind::ffi::ErrorCode::kInvalidArgument, \"kdt: invalid run options\");");
    w.close();
    // An inout's result starts as its argument (when XLA did not alias them).
    for (const auto& [out, in] : sig.inouts) {
      w.open("if (" + out + "->untyped_data() != " + in + ".untyped_data()) {");
      w.line("std::memcpy(" + out + "->untyped_data(), " + in + ".untyped_data(), " + in + ".size_bytes());");
      w.close();
    }
    // Scalars: f16 and bf16 from their f32 attribute.
    size_t next_scalar = 0;
    for (size_t p = 0; p < k.params.size(); ++p) {
      if (k.params[p].first) continue;
      const auto& [name, dtype] = sig.scalars[next_scalar++];
      std::string value = name + "_attr";
      if (dtype == DType::F16) value = "kdt_rt::f16_from_f64(" + value + ")";
      if (dtype == DType::BF16) value = "kdt_rt::bf16_from_f64(" + value + ")";
      w.line(c_type(dtype) + " " + name + "_value = " + value + ";");
      sig.data[p] = "&" + name + "_value";
    }
    emit_kernel_call(k, [&](size_t p) { return sig.data[p]; }, w);
    w.line("if (status != 0) return kdt_bind::error_of(failure);");
    w.line("return kdt_bind::ffi::Error::Success();");
    w.close();
    w.line("XLA_FFI_DEFINE_HANDLER_SYMBOL(kdt_xla_" + k.kd_name + ", " + impl + ", " + ffi_bind_chain("", sig.binds) + ");");
    w.line();
  }
}

}  // namespace kdt::emit
