// The --harness main() of emitted C++ (also what `kdt run` compiles): reads
// each in/inout parameter from a .npy file and each scalar from the command
// line (the seeded generator only when asked), runs the kernel and writes
// every out/inout parameter (kdt_harness.h has the support code).
#include "cpp_harness.h"

#include "c_types.h"
#include "loop_shapes.h"
#include "target_names.h"

namespace kdt::emit {

namespace {

std::string c_type(DType t) { return emit::c_type(t, "kdt_rt"); }

}  // namespace

void emit_cpp_harness(const ir::Kernel& k, const CppEmitOptions& options, CodeWriter& w) {
  const TargetNames names(k);
  bool multi = k.devices > 1;
  std::string devices = std::to_string(k.devices);
  w.line("// --harness: reads every in/inout parameter from a .npy file and every scalar from");
  w.line("// --input NAME=VALUE (or the seeded generator, with --random NAME or --random-all),");
  w.line("// runs the kernel and writes every out/inout parameter to OUTPUT_DIR/NAME.npy" +
          std::string(k.mesh.size() >= 2 ? " (mesh-major: the mesh " + shape_string(k.mesh) + ", then the shape)."
                      : multi         ? " (device-major: [devices, ...])."
                                      : "."));
  w.open("int main(int argc, char** argv) {");
  if (options.mpi) {
    // Every rank reads the inputs and runs its device; rank 0 writes the outputs.
    // Open MPI 4.1's one-sided component over its shared-memory transport
    // (osc/rdma with btl/vader) crashed in atomics to its own rank in our
    // tests; osc/sm (one node) and osc/pt2pt (any network) do not. A choice
    // in the environment stays the user's.
    w.line("setenv(\"OMPI_MCA_osc\", \"sm,pt2pt\", 0);");
    w.line("kdt_rt::MpiSession mpi(argc, argv);");
  }
  w.line("kdt_rt::HarnessArgs args;");
  // kdt --emit=cpp --harness --dma-mode=... --dma-order=... --program-order=...: the defaults.
  if (options.dma_mode == "eager") w.line("args.run.eager_dma = true;");
  if (options.dma_order != "fifo") {
    w.line(std::string("args.run.dma_order = ") + (options.dma_order == "lifo" ? "1" : "2") + ";  // " +
           options.dma_order);
  }
  if (options.program_order != "forward") {
    w.line(std::string("args.run.program_order = ") + (options.program_order == "reverse" ? "1" : "2") + ";  // " +
           options.program_order);
  }
  w.line("if (!kdt_rt::parse_harness_args(argc, argv, args)) return 2;");
  std::string params;
  for (auto [is_ref, i] : k.params) {
    std::string kind = "Scalar", name = is_ref ? k.refs[i].kd_name : k.scalars[i].kd_name;
    if (is_ref) {
      const ir::Ref& r = k.refs[i];
      kind = !r.is_output ? "In" : r.starts_uninitialized ? "Out" : "Inout";
    }
    params += std::string(params.empty() ? "" : ", ") + "{\"" + name + "\", kdt_rt::HarnessParamKind::" + kind + "}";
  }
  w.line("if (!kdt_rt::check_harness_params(args, {" + params + "})) return 2;");
  if (options.mpi) {
    w.open("if (mpi.size() != " + devices + ") {");
    w.line("if (mpi.rank() == 0) kdt_rt::detail::harness_error(\"kernel " + k.kd_name + " runs on " + devices +
           " devices, one per MPI rank, but mpirun started \" + std::to_string(mpi.size()) + \" (mpirun -n " + devices +
           ")\");");
    w.line("return 2;");
    w.close();
  }
  std::string call;
  uint64_t index = 0;
  // Mesh-major (section 15): a mesh of two or more axes prepends all of
  // them, `devices(N)` prepends [N] when N > 1.
  Shape prefix;
  if (k.mesh.size() >= 2) prefix = k.mesh;
  else if (multi) prefix = {k.devices};
  auto shape_of = [&](const ir::Ref& r) {
    std::string shape;
    for (int64_t d : prefix) shape += (shape.empty() ? "" : ", ") + std::to_string(d) + "u";
    for (int64_t d : r.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d) + "u";
    return shape;
  };
  for (auto [is_ref, i] : k.params) {
    if (!call.empty()) call += ", ";
    if (is_ref) {
      const ir::Ref& r = k.refs[i];
      const std::string& name = names.refs[i];
      w.line("kdt_rt::HarnessBuffer<" + c_type(r.dtype) + "> " + name + ";");
      if (r.is_output && r.starts_uninitialized) {
        w.line("kdt_rt::harness_out_buffer({" + shape_of(r) + "}, " + name + ");");
      } else {
        w.line("if (!kdt_rt::harness_input(args, \"" + r.kd_name + "\", \"" + std::string(dtype_name(r.dtype)) +
                "\", {" + shape_of(r) + "}, " + name + ", " + std::to_string(index) + ")) return 2;");
      }
      if (multi) {
        std::string T = c_type(r.dtype);
        w.line("std::vector<" + T + "*> " + name + "_devices_;");
        w.line("for (size_t d = 0; d < " + devices + "; ++d) " + name + "_devices_.push_back(" + name + ".data() + d * " +
                std::to_string(count_of(r.shape)) + ");");
        call += name + "_devices_.data()";
      } else {
        call += name + ".data()";
      }
    } else {
      const ir::ScalarParam& sp = k.scalars[i];
      const std::string& name = names.scalars[i];
      w.line(c_type(sp.dtype) + " " + name + "{};");
      w.line("if (!kdt_rt::harness_scalar(args, \"" + sp.kd_name + "\", \"" + std::string(dtype_name(sp.dtype)) +
              "\", " + name + ", " + std::to_string(index) + ")) return 2;");
      call += name;
    }
    ++index;
  }
  w.line("kdt_rt::RunError error;");
  w.line("auto start = std::chrono::steady_clock::now();");
  w.open("if (kdt_kernels::" + names.kernel + "(" + call + (call.empty() ? "" : ", ") + "args.run, &error) != 0) {");
  if (options.mpi) {
    // Each rank reports its own failure (a rank stopped by another's has
    // none); the lowest of them also writes the JSON for `kdt run`.
    w.line("const bool mine = !error.message.empty();");
    w.line("const int reporter = mpi.lowest(mine);");
    w.line("const bool merged = kdt_rt::merge_deadlock_reports(error, reporter);  // every blocked rank's wait, in one report");
    w.line("if (mine && !merged) kdt_rt::report_failure(error, mpi.rank() == reporter ? args.diag_json.c_str() : nullptr);");
  } else {
    w.line("kdt_rt::report_failure(error, args.diag_json.c_str());");
  }
  w.line("return 1;");
  w.close();
  if (options.mpi) w.line("if (mpi.rank() != 0) return 0;  // rank 0 holds every device's outputs");
  w.line("double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();");
  // The time has a line of its own: every other line of the summary is
  // the same on every run.
  w.line("std::printf(\"kernel " + k.kd_name + ": grid " + shape_string(k.grid) + ", " + devices +
          (k.devices == 1 ? " device" : " devices") + "\\ntime: %.3f ms\\n\", ms);");
  w.line("kdt_rt::print_generated(args);");
  // Every output goes to a temporary file first; all are renamed into
  // place together, once every one is written.
  for (auto [is_ref, i] : k.params) {
    if (!is_ref || !k.refs[i].is_output) continue;
    const ir::Ref& r = k.refs[i];
    w.open("if (!kdt_rt::harness_output(args, \"" + r.kd_name + "\", \"" + std::string(dtype_name(r.dtype)) + "\", {" +
            shape_of(r) + "}, " + names.refs[i] + ")) {");
    w.line("kdt_rt::harness_discard_outputs(args);");
    w.line("return 2;");
    w.close();
  }
  w.line("if (!kdt_rt::harness_commit_outputs(args)) return 2;");
  w.line("return 0;");
  w.close();
}

}  // namespace kdt::emit
