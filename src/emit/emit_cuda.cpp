// The CUDA back end of the compiled path (issue 6). Works on the IR before
// discharge: DMAs stay asynchronous. The mapping (docs/cuda.md):
//   - one `__global__` per kernel; one program = one thread block; the
//     program ids come from the flat blockIdx.x, decomposed over the grid;
//   - scalars are computed redundantly by every thread (so all control flow
//     is block-uniform and barriers may sit anywhere);
//   - every tile value lives in dynamic shared memory; element-wise work is a
//     block-stride loop bracketed by __syncthreads();
//   - reductions over all elements are block reductions, axis reductions and
//     `dot` give each output element to one thread;
//   - DMAs: sm_90 bulk copies (cp.async.bulk + mbarrier, bulk groups,
//     cp.reduce.async.bulk .add.f32) where views, dtype and alignment allow,
//     else a cooperative block copy (atomics for add=true into @global);
//     each DMA semaphore keeps an in-flight queue so a wait completes exactly
//     the DMA it retires;
//   - a host launcher per kernel.
#include "kdt/emit/emit_cuda.h"

#include <cmath>
#include <functional>
#include <cstring>
#include <map>
#include <set>

#include "code_writer.h"
#include "loop_shapes.h"
#include "kdt/runtime/kdt_runtime.h"
#include "kdt/version.h"

namespace kdt {

extern const char* const kCudaPrelude;

namespace {

using ir::Expr;
using ir::ExprKind;
using emit::count_of;
using emit::index_of;
using emit::LoopCtx;
using emit::strides_of;

std::string ctype(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "int8_t";
    case DType::I16: return "int16_t";
    case DType::I32: return "int32_t";
    case DType::I64: return "int64_t";
    case DType::U8: return "uint8_t";
    case DType::U16: return "uint16_t";
    case DType::U32: return "uint32_t";
    case DType::U64: return "uint64_t";
    case DType::F16: return "kdt_cu::f16";
    case DType::BF16: return "kdt_cu::bf16";
    case DType::F32: return "float";
    case DType::F64: return "double";
  }
  return "void";
}

int64_t elem_size(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::I8:
    case DType::U8: return 1;
    case DType::I16:
    case DType::U16:
    case DType::F16:
    case DType::BF16: return 2;
    case DType::I32:
    case DType::U32:
    case DType::F32: return 4;
    default: return 8;
  }
}



int arch_number(const std::string& arch) {
  size_t i = 0;
  while (i < arch.size() && !std::isdigit(static_cast<unsigned char>(arch[i]))) ++i;
  int n = 0;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i]))) n = n * 10 + (arch[i++] - '0');
  return n;
}

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

// Element loop context: a block-stride loop over `shape` with the flat index
// and one index per dimension.

constexpr int64_t kQueue = 8;      // kdt_cu::kQueue
constexpr int64_t kMaxTx = (1 << 20) - 1;  // bytes one mbarrier phase can count

class KernelEmitter {
 public:
  KernelEmitter(const ir::Kernel& k, const SourceManager& sources, const CudaEmitOptions& options,
                DiagnosticEngine& diags, emit::CodeWriter& out)
      : k_(k), sources_(sources), options_(options), diags_(diags), out_(out), w_(sources),
        arch_(arch_number(options.arch)) {
    threads_ = k.threads ? *k.threads : options.threads;
    if (threads_ <= 0) threads_ = 128;
  }

  bool emit() {
    if (threads_ > 1024) {
      diags_.report(DiagCode::InvalidDeclaration, k_.range,
                    "kernel `" + k_.name + "` asks for " + std::to_string(threads_) +
                        " threads per block; CUDA allows at most 1024 (threads(T) or --threads)");
      return false;
    }
    layout_sync(k_.body);
    layout_state();
    emit_body();
    int64_t limit = arch_ >= 90 ? 232448 : arch_ >= 80 ? 166912 : 49152;
    if (peak_ > limit) {
      diags_.report(DiagCode::InvalidDeclaration, k_.range,
                    "kernel `" + k_.name + "` needs " + std::to_string(peak_) +
                        " bytes of shared memory for its scratch buffers and tile values on the compiled path; " +
                        options_.arch + " allows " + std::to_string(limit) + " per block");
      return false;
    }
    emit_kernel();
    emit_launcher();
    return true;
  }

 private:
  // ----- shared-memory layout ---------------------------------------------------------
  int64_t alloc(int64_t bytes) {
    top_ = (top_ + 127) / 128 * 128;
    int64_t off = top_;
    top_ += std::max<int64_t>(bytes, 1);
    peak_ = std::max(peak_, top_);
    return off;
  }

  std::string smem_ptr(DType t, int64_t off) {
    return "reinterpret_cast<" + ctype(t) + "*>(kdt_smem + " + std::to_string(off) + ")";
  }

  // Scratch refs, mbarriers and the reduction buffer come first.
  void layout_state() {
    for (size_t i = 0; i < k_.refs.size(); ++i) {
      const ir::Ref& r = k_.refs[i];
      if (!r.is_param) ref_off_[static_cast<int>(i)] = alloc(count_of(r.shape) * elem_size(r.dtype));
    }
    red_off_ = alloc(static_cast<int64_t>(threads_) * 8);
    if (use_mbarriers()) {
      for (size_t i = 0; i < k_.sems.size(); ++i) {
        if (k_.sems[i].kind == SemKind::Dma && !sync_sem(static_cast<int>(i))) bar_off_[static_cast<int>(i)] = alloc(k_.sems[i].count * kQueue * 8);
      }
    }
  }

  bool use_bulk() const { return arch_ >= 90; }
  bool use_mbarriers() const { return arch_ >= 80; }
  bool multi_device() const { return k_.devices > 1; }

  // devices(N) > 1: the semaphores another device may raise (every regular
  // one, and every DMA semaphore that is the destination semaphore of a
  // remote DMA) become 64-bit counters in the per-device sync buffer,
  // `sync_slots_` per program; the peers of every remote destination ref
  // go into the kernel's peer table.
  void layout_sync(const ir::Block& b) {
    if (!multi_device()) return;
    auto add_sem = [&](int sem) {
      if (sync_base_.count(sem)) return;
      sync_base_[sem] = sync_slots_;
      sync_slots_ += k_.sems[sem].count;
    };
    for (size_t i = 0; i < k_.sems.size(); ++i) {
      if (k_.sems[i].kind == SemKind::Regular) add_sem(static_cast<int>(i));
    }
    std::function<void(const ir::Block&)> walk = [&](const ir::Block& block) {
      for (const ir::StmtPtr& st : block) {
        if (st->kind == ir::StmtKind::DmaStart && st->device) {
          add_sem(st->sem.sem);
          peer_refs_.insert(st->dst->ref);
        }
        walk(st->body);
        for (const ir::IfClause& c : st->clauses) walk(c.body);
      }
    };
    walk(b);
  }
  bool sync_sem(int sem) const { return sync_base_.count(sem) != 0; }
  // The counter of semaphore element `r` of this program on `device`
  // (this device when empty).
  std::string sync_counter(const ir::SemRef& r, const std::string& device = "") {
    std::string dev = device.empty() ? "kdt_device" : device;
    return "(kdt_peers.sync[" + dev + "] + kdt_flat * " + std::to_string(sync_slots_) + " + " +
           std::to_string(sync_base_.at(r.sem)) + " + " + sem_index(r) + ")";
  }

  std::string ref_base(int ref) const {
    const ir::Ref& r = k_.refs[ref];
    return r.is_param ? r.name : "kdt_s_" + r.name;
  }
  std::string local_name(int l) const { return k_.locals[l].name; }
  // Internal names end in `_` so that KD names keep their spelling.
  std::string fresh(const char* base) { return std::string(base) + std::to_string(next_temp_++) + "_"; }

  // ----- kernel and launcher ------------------------------------------------------------
  // The C type of a parameter: a device pointer for a ref, a value for a scalar.
  std::string param_type(bool is_ref, int i) const {
    if (!is_ref) return ctype(k_.scalars[i].dtype);
    const ir::Ref& r = k_.refs[i];
    return std::string(r.writable ? "" : "const ") + ctype(r.dtype) + "*";
  }
  std::string param_name(bool is_ref, int i) const { return is_ref ? k_.refs[i].name : k_.scalars[i].name; }

  // The kernel's parameters; devices(N) > 1 adds the peer table and the device id.
  std::string params_decl() {
    std::string sig;
    for (auto [is_ref, i] : k_.params) sig += (sig.empty() ? "" : ", ") + param_type(is_ref, i) + " " + param_name(is_ref, i);
    if (multi_device()) sig += std::string(sig.empty() ? "" : ", ") + "const " + k_.name + "_peers kdt_peers, const int32_t kdt_device";
    return sig;
  }

  // devices(N) > 1: what a device needs to reach its peers.
  void emit_peer_table() {
    std::string n = std::to_string(k_.devices);
    out_.line("// Peer table of `" + k_.name + "`: entry d is device d's copy (peer access enabled by the caller).");
    out_.open("struct " + k_.name + "_peers {");
    for (int ref : peer_refs_) out_.line(ctype(k_.refs[ref].dtype) + "* " + k_.refs[ref].name + "[" + n + "];");
    out_.line("unsigned long long* sync[" + n + "];  // sync buffers (" + k_.name + "_sync_bytes each)");
    out_.close("};");
  }

  void emit_kernel() {
    if (multi_device()) emit_peer_table();
    out_.line("// Kernel `" + k_.name + "`: grid " + shape_string(k_.grid) + " = " + std::to_string(count_of(k_.grid)) +
              " blocks of " + std::to_string(threads_) + " threads, " + std::to_string(peak_) +
              " bytes of dynamic shared memory.");
    out_.line("__global__ void __launch_bounds__(" + std::to_string(threads_) + ") " + k_.name + "_kernel(" +
              params_decl() + ")");
    out_.raw(w_.str());
    out_.line();
  }

  void emit_launcher() {
    if (multi_device()) return emit_multi_device_launcher();
    std::string args;
    for (auto [is_ref, i] : k_.params) args += (args.empty() ? "" : ", ") + (is_ref ? k_.refs[i].name : k_.scalars[i].name);
    std::string sig = params_decl();
    out_.line("#ifndef __CUDACC_RTC__");
    out_.line("constexpr unsigned " + k_.name + "_threads = " + std::to_string(threads_) + ";");
    out_.line("constexpr unsigned " + k_.name + "_blocks = " + std::to_string(count_of(k_.grid)) + ";");
    out_.line("constexpr size_t " + k_.name + "_shared_bytes = " + std::to_string(peak_) + ";");
    out_.line("// Launches `" + k_.name + "` on `stream`: device pointers (row-major), scalars by value.");
    out_.line("// Returns the launch status (cudaGetLastError after the launch).");
    out_.open("inline cudaError_t " + k_.name + "(" + sig + (sig.empty() ? "" : ", ") + "cudaStream_t stream = 0) {");
    out_.open("if (" + k_.name + "_shared_bytes > 48 * 1024) {");
    out_.line("cudaError_t e = cudaFuncSetAttribute(" + k_.name + "_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, "
              "static_cast<int>(" + k_.name + "_shared_bytes));");
    out_.line("if (e != cudaSuccess) return e;");
    out_.close();
    out_.line(k_.name + "_kernel<<<dim3(" + k_.name + "_blocks), dim3(" + k_.name + "_threads), " + k_.name +
              "_shared_bytes, stream>>>(" + args + ");");
    out_.line("return cudaGetLastError();");
    out_.close();
    out_.line("#endif  // __CUDACC_RTC__");
    out_.line();
  }

  // devices(N) > 1: every parameter becomes an array indexed by device.
  // The launcher zeroes the sync buffers, makes every device's stream wait
  // until all of them are zero (a peer may signal at once), checks that the
  // grid can be co-resident and starts a cooperative launch per device.
  void emit_multi_device_launcher() {
    std::string n = std::to_string(k_.devices);
    std::string K = k_.name;
    std::string sig;
    for (auto [is_ref, i] : k_.params) {
      std::string t = param_type(is_ref, i);
      sig += (is_ref ? t + " const" : "const " + t) + " (&" + param_name(is_ref, i) + ")[" + n + "], ";
    }
    out_.line("#ifndef __CUDACC_RTC__");
    out_.line("constexpr int " + K + "_devices = " + n + ";");
    out_.line("constexpr unsigned " + K + "_threads = " + std::to_string(threads_) + ";");
    out_.line("constexpr unsigned " + K + "_blocks = " + std::to_string(count_of(k_.grid)) + ";");
    out_.line("constexpr size_t " + K + "_shared_bytes = " + std::to_string(peak_) + ";");
    out_.line("constexpr size_t " + K + "_sync_bytes = " +
              std::to_string(std::max<int64_t>(count_of(k_.grid) * sync_slots_ * 8, 8)) + ";");
    out_.line("// Launches `" + K + "` on " + n + " devices at once. Every argument is indexed by device: device d runs");
    out_.line("// on CUDA device `device[d]` and stream `stream[d]` with its own parameters; `sync[d]` is");
    out_.line("// " + K + "_sync_bytes of memory on device d (zeroed here). Peer access between the devices must be");
    out_.line("// enabled. Returns the first error.");
    out_.open("inline cudaError_t " + K + "(" + sig + "void* const (&sync)[" + n + "], const int (&device)[" + n +
              "], const cudaStream_t (&stream)[" + n + "]) {");
    out_.line(K + "_peers peers{};");
    out_.open("for (int d = 0; d < " + n + "; ++d) {");
    for (int ref : peer_refs_) out_.line("peers." + k_.refs[ref].name + "[d] = " + k_.refs[ref].name + "[d];");
    out_.line("peers.sync[d] = static_cast<unsigned long long*>(sync[d]);");
    out_.close();
    out_.line("kdt_cu::DeviceGroup<" + n + "> group(device, stream);");
    out_.line("cudaError_t e = group.prepare(reinterpret_cast<const void*>(" + K + "_kernel), " + K + "_threads, " + K +
              "_shared_bytes, " + K + "_blocks, sync, " + K + "_sync_bytes);");
    out_.open("for (int d = 0; d < " + n + " && e == cudaSuccess; ++d) {");
    std::string args;
    for (auto [is_ref, i] : k_.params) {
      std::string name = param_name(is_ref, i);
      out_.line(param_type(is_ref, i) + " " + name + "_ = " + name + "[d];");
      args += "&" + name + "_, ";
    }
    out_.line("int32_t device_ = d;");
    out_.line("void* args[] = {" + args + "&peers, &device_};");
    out_.line("e = group.launch(d, reinterpret_cast<const void*>(" + K + "_kernel), " + K + "_blocks, " + K + "_threads, args, " +
              K + "_shared_bytes);");
    out_.close();
    out_.line("return group.finish(e);");
    out_.close();
    out_.line("#endif  // __CUDACC_RTC__");
    out_.line();
  }

  void emit_body() {
    w_.open("{");
    w_.line("extern __shared__ __align__(128) unsigned char kdt_smem[];");
    w_.line("const int64_t kdt_tid = threadIdx.x;");
    w_.line("const int64_t kdt_nt = blockDim.x;");
    w_.line("(void)kdt_tid;");
    w_.line("(void)kdt_nt;");
    w_.line("unsigned char* const kdt_red = kdt_smem + " + std::to_string(red_off_) + ";");
    w_.line("(void)kdt_red;");
    w_.line("const int64_t kdt_flat = blockIdx.x;");
    int64_t stride = 1;
    std::vector<std::string> pid(k_.grid.size());
    for (size_t d = k_.grid.size(); d-- > 0;) {
      w_.line("const int32_t kdt_pid" + std::to_string(d) + " = static_cast<int32_t>(kdt_flat / " + std::to_string(stride) +
              " % " + std::to_string(k_.grid[d]) + ");");
      w_.line("(void)kdt_pid" + std::to_string(d) + ";");
      stride *= k_.grid[d];
    }
    for (auto [ref, off] : ref_off_) {
      const ir::Ref& r = k_.refs[ref];
      w_.line(ctype(r.dtype) + "* const " + ref_base(ref) + " = " + smem_ptr(r.dtype, off) + ";  // scratch " +
              type_string(Type::ref(r.dtype, r.shape, r.space)));
      w_.line("(void)" + ref_base(ref) + ";");
    }
    for (size_t i = 0; i < k_.sems.size(); ++i) {
      const ir::Semaphore& s = k_.sems[i];
      if (sync_sem(static_cast<int>(i))) {
        w_.line("// semaphore `" + s.name + "`: counters in the sync buffer (other devices raise it)");
      } else if (s.kind == SemKind::Regular) {
        // Only this program raises and lowers its regular semaphores, and every
        // thread runs the same control flow: each keeps the counter itself.
        w_.line("int32_t kdt_sem_" + s.name + "[" + std::to_string(s.count) + "] = {};");
      } else {
        w_.line("kdt_cu::DmaQueue kdt_q_" + s.name + "[" + std::to_string(s.count) + "] = {};");
        if (bar_off_.count(static_cast<int>(i))) {
          w_.line("unsigned char* const kdt_bar_" + s.name + " = kdt_smem + " + std::to_string(bar_off_[static_cast<int>(i)]) + ";");
        }
      }
    }
    if (!bar_off_.empty()) {
      w_.open("if (kdt_tid == 0) {");
      for (auto [sem, off] : bar_off_) {
        w_.line("for (int b_ = 0; b_ < " + std::to_string(k_.sems[sem].count * kQueue) + "; ++b_) kdt_cu::mbar_init(kdt_smem + " +
                std::to_string(off) + " + 8 * b_);");
      }
      w_.line("kdt_cu::mbar_init_fence();");
      w_.close();
      w_.line("__syncthreads();");
    }
    block(k_.body);
    w_.close();
  }

  // ----- statements -----------------------------------------------------------------------
  void block(const ir::Block& b) {
    int64_t mark = top_;
    for (const ir::StmtPtr& s : b) stmt(*s);
    top_ = mark;
  }

  std::string sem_index(const ir::SemRef& r) { return r.index ? "(" + scalar(*r.index) + ")" : "0"; }

  void stmt(const ir::Stmt& s) {
    w_.source_line(s.range);
    // Temporaries of one statement die with it; a tile `let` and asm outputs
    // live until the end of the enclosing block.
    switch (s.kind) {
      case ir::StmtKind::Let: {
        const ir::Local& l = k_.locals[s.local];
        if (l.type.shape.empty()) {
          int64_t mark = top_;
          std::string v = scalar(*s.value);
          top_ = mark;
          w_.line(ctype(l.type.dtype) + " " + l.name + " = " + v + ";");
          w_.line("(void)" + l.name + ";");
        } else {
          int64_t off = alloc(count_of(l.type.shape) * elem_size(l.type.dtype));
          w_.line(ctype(l.type.dtype) + "* const " + l.name + " = " + smem_ptr(l.type.dtype, off) + ";");
          int64_t mark = top_;
          store_tile(l.name, l.type.shape, *s.value);
          top_ = mark;
        }
        return;
      }
      case ir::StmtKind::AsmStmt: asm_stmt(s); return;
      default: break;
    }
    int64_t mark = top_;
    switch (s.kind) {
      case ir::StmtKind::Assign: {
        const ir::Local& l = k_.locals[s.local];
        if (l.type.shape.empty()) w_.line(l.name + " = " + scalar(*s.value) + ";");
        else store_tile(l.name, l.type.shape, *s.value);
        break;
      }
      case ir::StmtKind::Store: store_view(s); break;
      case ir::StmtKind::For: {
        std::string lo = scalar(*s.lo), hi = scalar(*s.hi);
        std::string v = local_name(s.local);
        w_.open("for (int64_t " + v + "_it = " + lo + "; " + v + "_it < " + hi + "; " + v + "_it += " + std::to_string(s.step) +
                ") {");
        w_.line("const int32_t " + v + " = static_cast<int32_t>(" + v + "_it);");
        w_.line("(void)" + v + ";");
        block(s.body);
        w_.close();
        break;
      }
      case ir::StmtKind::If: if_chain(s.clauses, 0); break;
      case ir::StmtKind::Assert:
        // Run-time checks belong to the interpretation path.
        w_.line("// assert: checked on the C++ path only");
        break;
      case ir::StmtKind::Eval: {
        if (s.value->type.shape.empty()) w_.line("(void)(" + scalar(*s.value) + ");");
        else materialize_array(*s.value);
        break;
      }
      case ir::StmtKind::DmaStart: dma_start(s); break;
      case ir::StmtKind::DmaWait: {
        if (sync_sem(s.sem.sem)) {
          w_.line("kdt_cu::wait_sys(" + sync_counter(s.sem) + ", " + std::to_string(s.bytes) + ");");
          break;
        }
        std::string q = "kdt_q_" + k_.sems[s.sem.sem].name + "[" + sem_index(s.sem) + "]";
        std::string bars = bar_off_.count(s.sem.sem)
                               ? "kdt_bar_" + k_.sems[s.sem.sem].name + " + " + sem_index(s.sem) + " * " +
                                     std::to_string(kQueue * 8)
                               : "nullptr";
        w_.line("kdt_cu::dma_retire(" + q + ", " + bars + ");");
        break;
      }
      case ir::StmtKind::SemSignal: {
        if (sync_sem(s.sem.sem)) {
          std::string amount = scalar(*s.amount);
          std::string device = s.device ? "(" + scalar(*s.device) + ")" : "";
          w_.line("kdt_cu::signal_sys(" + sync_counter(s.sem, device) + ", " + amount + ");");
          break;
        }
        w_.line("kdt_sem_" + k_.sems[s.sem.sem].name + "[" + sem_index(s.sem) + "] += " + scalar(*s.amount) + ";");
        break;
      }
      case ir::StmtKind::SemWait: {
        if (sync_sem(s.sem.sem)) {
          w_.line("kdt_cu::wait_sys(" + sync_counter(s.sem) + ", " + scalar(*s.amount) + ");");
          break;
        }
        std::string sem = "kdt_sem_" + k_.sems[s.sem.sem].name + "[" + sem_index(s.sem) + "]";
        std::string amount = scalar(*s.amount);
        // Nothing else can raise this program's semaphore: an unmet wait is a deadlock.
        w_.line("if (" + sem + " < " + amount + ") __trap();");
        w_.line(sem + " -= " + amount + ";");
        break;
      }
      case ir::StmtKind::DmaIssue:
      case ir::StmtKind::DmaRetire:
      case ir::StmtKind::Let:
      case ir::StmtKind::AsmStmt: break;
    }
    top_ = mark;
  }

  void if_chain(const std::vector<ir::IfClause>& clauses, size_t i) {
    w_.open("if (" + scalar(*clauses[i].cond) + ") {");
    block(clauses[i].body);
    if (i + 1 < clauses.size()) {
      w_.reopen("} else {");
      if (clauses[i + 1].cond) if_chain(clauses, i + 1);
      else block(clauses[i + 1].body);
    }
    w_.close();
  }

  // ----- element loops ------------------------------------------------------------------------
  LoopCtx new_ctx(const Shape& shape) {
    LoopCtx ctx;
    ctx.shape = shape;
    std::string id = std::to_string(next_temp_++);
    for (size_t d = 0; d < shape.size(); ++d) ctx.index.push_back("i" + id + "_" + std::to_string(d) + "_");
    ctx.flat = shape.empty() ? "0" : "e" + id + "_";
    return ctx;
  }

  // A block-stride loop: every element belongs to one thread. Barriers on
  // both sides order it against everything the block did before and after.
  void open_loop(const LoopCtx& ctx) {
    w_.line("__syncthreads();");
    if (ctx.shape.empty()) {
      w_.open("if (kdt_tid == 0) {");
      return;
    }
    w_.open("for (int64_t " + ctx.flat + " = kdt_tid; " + ctx.flat + " < " + std::to_string(count_of(ctx.shape)) + "; " +
            ctx.flat + " += kdt_nt) {");
    std::vector<int64_t> st = strides_of(ctx.shape);
    for (size_t d = 0; d < ctx.shape.size(); ++d) {
      std::string v = ctx.flat;
      if (st[d] != 1) v = "(" + v + " / " + std::to_string(st[d]) + ")";
      if (d != 0) v += " % " + std::to_string(ctx.shape[d]);
      w_.line("const int64_t " + ctx.index[d] + " = " + v + ";");
      w_.line("(void)" + ctx.index[d] + ";");
    }
  }

  void close_loop() {
    w_.close();
    w_.line("__syncthreads();");
  }

  void store_tile(const std::string& name, const Shape& shape, const Expr& value) {
    prepare(value);
    LoopCtx ctx = new_ctx(shape);
    open_loop(ctx);
    w_.line(name + "[" + ctx.flat + "] = " + elem(value, ctx) + ";");
    close_loop();
  }

  std::string scalar(const Expr& e) {
    prepare(e);
    LoopCtx ctx;
    return elem(e, ctx);
  }

  void prepare(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Reduce:
      case ExprKind::Dot:
      case ExprKind::Transpose:
      case ExprKind::Reshape:
      case ExprKind::TileSlice:
        if (!materialized_.count(&e)) materialize(e);
        return;
      case ExprKind::SemRead:
        // A counter other devices raise: read once for the block, before any element loop.
        if (sync_sem(e.sem->sem) && !materialized_.count(&e)) {
          std::string name = fresh("sem");
          w_.line("const int32_t " + name + " = kdt_cu::read_sys(" + sync_counter(*e.sem) + ", kdt_red);");
          materialized_[&e] = name;
        }
        return;
      case ExprKind::Load:
        view_starts_[&e] = view_starts(*e.view);
        if (e.mask) prepare(*e.mask);
        if (e.other) prepare(*e.other);
        return;
      default:
        for (const ir::ExprPtr& o : e.operands) prepare(*o);
    }
  }

  std::vector<std::string> view_starts(const ir::View& v) {
    std::vector<std::string> starts;
    for (const ir::ViewDim& dim : v.dims) {
      if (!dim.start) {
        starts.push_back(std::to_string(dim.static_start));
        continue;
      }
      std::string name = fresh("start");
      w_.line("const int64_t " + name + " = static_cast<int64_t>(" + scalar(*dim.start) + ");");
      starts.push_back(name);
    }
    return starts;
  }

  // Offset of the view element addressed by the trailing loop indices.
  std::string view_elem_offset(const ir::View& v, const std::vector<std::string>& starts,
                               const std::vector<std::string>& index) {
    const Shape& rs = k_.refs[v.ref].shape;
    std::vector<int64_t> st = strides_of(rs);
    Shape vshape = v.shape();
    size_t offset_dims = index.size() - std::min(index.size(), vshape.size());
    std::string out;
    size_t vd = 0;
    for (size_t d = 0; d < rs.size(); ++d) {
      const ir::ViewDim& dim = v.dims[d];
      std::string coord = starts[d];
      if (!dim.dropped) {
        std::string i = (index.empty() || vshape[vd] == 1) ? "" : index[offset_dims + vd];
        if (!i.empty()) coord = coord == "0" ? i : coord + " + " + i;
        ++vd;
      }
      if (coord == "0") continue;
      std::string term = st[d] == 1 ? "(" + coord + ")" : "(" + coord + ") * " + std::to_string(st[d]);
      out += out.empty() ? term : " + " + term;
    }
    return out.empty() ? "0" : out;
  }

  std::string elem(const Expr& e, const LoopCtx& ctx) {
    if (auto it = materialized_.find(&e); it != materialized_.end()) return index_of(it->second, e.type.shape, ctx);
    std::string T = ctype(e.type.dtype);
    auto operand = [&](size_t i) { return elem(*e.operands[i], ctx); };
    switch (e.kind) {
      case ExprKind::Const: return const_literal(e);
      case ExprKind::Local: return index_of(local_name(e.local), e.type.shape, ctx);
      case ExprKind::ScalarParam: return k_.scalars[e.index].name;
      case ExprKind::ProgramId: return "kdt_pid" + std::to_string(e.index);
      case ExprKind::NumPrograms:
        return "int32_t(" + std::to_string(e.index >= 0 && static_cast<size_t>(e.index) < k_.grid.size() ? k_.grid[e.index] : 1) + ")";
      case ExprKind::DeviceId: return multi_device() ? "kdt_device" : "int32_t(0)";
      case ExprKind::NumDevices: return "int32_t(" + std::to_string(k_.devices) + ")";
      case ExprKind::Load: {
        const std::vector<std::string>& starts = view_starts_.at(&e);
        std::string access = ref_base(e.view->ref) + "[" + view_elem_offset(*e.view, starts, ctx.index) + "]";
        if (!e.mask) return access;
        std::string other = e.other ? elem(*e.other, ctx) : T + "()";
        return "(" + elem(*e.mask, ctx) + " ? " + access + " : " + other + ")";
      }
      case ExprKind::Unary: {
        std::string a = operand(0);
        switch (e.unary) {
          case ir::UnaryOp::Neg: return "kdt_cu::op_neg(" + a + ")";
          case ir::UnaryOp::Not: return "(!" + a + ")";
          case ir::UnaryOp::BitNot: return "static_cast<" + T + ">(~" + a + ")";
        }
        return a;
      }
      case ExprKind::Binary: return binary(e, operand(0), operand(1));
      case ExprKind::Select:
      case ExprKind::Where: return "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")";
      case ExprKind::Cast: return "kdt_cu::convert<" + T + ">(" + operand(0) + ")";
      case ExprKind::Math:
        if (e.name == "maximum" || e.name == "minimum") {
          return "kdt_cu::" + e.name + "<" + T + ">(" + operand(0) + ", " + operand(1) + ")";
        }
        return "kdt_cu::math::" + e.name + "<" + T + ">(" + operand(0) + ")";
      case ExprKind::Fill: return operand(0);
      case ExprKind::Iota: {
        // Broadcast into the loop's shape (right-aligned): the loop's index
        // along the same dimension, and 0 along a dimension of size 1.
        size_t axis = static_cast<size_t>(e.index);
        std::string i = ctx.index.empty() || e.type.shape[axis] == 1 ? "0" : ctx.index[ctx.index.size() - e.type.shape.size() + axis];
        return "kdt_cu::convert<" + T + ">(" + i + ")";
      }
      case ExprKind::Broadcast: return operand(0);
      case ExprKind::SemRead:
        if (sync_sem(e.sem->sem)) return materialized_.at(&e);
        return "kdt_sem_" + k_.sems[e.sem->sem].name + "[" + sem_index(*e.sem) + "]";
      case ExprKind::AsmOutput: return index_of(asm_outputs_.at(e.asm_id)[e.index], e.type.shape, ctx);
      case ExprKind::PtxOp: return "0 /* PtxOp appears only after discharge */";
      default: return index_of(materialize(e), e.type.shape, ctx);
    }
  }

  std::string binary(const Expr& e, const std::string& a, const std::string& b) {
    DType t = e.operands[0]->type.dtype;
    std::string T = ctype(t);
    using Op = ir::BinaryOp;
    switch (e.binary) {
      case Op::Add: return "kdt_cu::op_add<" + T + ">(" + a + ", " + b + ")";
      case Op::Sub: return "kdt_cu::op_sub<" + T + ">(" + a + ", " + b + ")";
      case Op::Mul: return "kdt_cu::op_mul<" + T + ">(" + a + ", " + b + ")";
      case Op::Div:
        if (is_float(t)) return "kdt_cu::op_div<" + T + ">(" + a + ", " + b + ")";
        return "kdt_cu::int_div<" + T + ">(" + a + ", " + b + ")";
      case Op::Rem:
        if (is_float(t)) return "kdt_cu::op_rem<" + T + ">(" + a + ", " + b + ")";
        return "kdt_cu::int_rem<" + T + ">(" + a + ", " + b + ")";
      case Op::Shl: return "kdt_cu::shl<" + T + ">(" + a + ", " + b + ")";
      case Op::Shr: return "kdt_cu::shr<" + T + ">(" + a + ", " + b + ")";
      case Op::BitAnd: return "static_cast<" + T + ">(" + a + " & " + b + ")";
      case Op::BitXor: return "static_cast<" + T + ">(" + a + " ^ " + b + ")";
      case Op::BitOr: return "static_cast<" + T + ">(" + a + " | " + b + ")";
      case Op::And: return "(" + a + " && " + b + ")";
      case Op::Or: return "(" + a + " || " + b + ")";
      default: break;
    }
    static const char* const cmp[] = {"<", "<=", ">", ">=", "==", "!="};
    std::string op = cmp[static_cast<int>(e.binary) - static_cast<int>(Op::Lt)];
    return "(kdt_cu::cmp_value(" + a + ") " + op + " kdt_cu::cmp_value(" + b + "))";
  }

  // A shared-memory array (or, for rank 0, a register) holding `e`.
  std::string declare_temp(const Expr& e, const std::string& name) {
    std::string T = ctype(e.type.dtype);
    if (e.type.shape.empty()) {
      w_.line(T + " " + name + " = " + T + "();");
    } else {
      int64_t off = alloc(count_of(e.type.shape) * elem_size(e.type.dtype));
      w_.line(T + "* const " + name + " = " + smem_ptr(e.type.dtype, off) + ";");
    }
    return name;
  }

  std::string materialize(const Expr& e) {
    if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
    std::string T = ctype(e.type.dtype);
    std::string name = fresh("t");
    const Shape& shape = e.type.shape;
    switch (e.kind) {
      case ExprKind::Reduce: {
        const Expr& x = *e.operands[0];
        std::string src = materialize_array(x);
        const Shape& xs = x.type.shape;
        declare_temp(e, name);
        bool sum = e.name == "sum";
        bool narrow = e.type.dtype == DType::F16 || e.type.dtype == DType::BF16;
        std::string acc_t = narrow ? "float" : T;
        auto value = [&](const std::string& v) { return narrow ? "kdt_cu::to_f32(" + v + ")" : v; };
        std::string op = sum ? "kdt_cu::AddOp{}" : e.name == "max" ? "kdt_cu::MaxOp{}" : "kdt_cu::MinOp{}";
        auto finish = [&](const std::string& acc) { return narrow ? "kdt_cu::convert<" + T + ">(" + acc + ")" : acc; };
        if (e.index < 0) {
          std::string acc = fresh("acc");
          if (xs.empty()) {
            w_.line(acc_t + " " + acc + " = " + value(src) + ";");
          } else {
            int64_t n = count_of(xs);
            w_.line(acc_t + " " + acc + "p = " + (sum ? acc_t + "()" : value(src + "[kdt_tid % " + std::to_string(n) + "]")) + ";");
            w_.line("for (int64_t j_ = kdt_tid; j_ < " + std::to_string(n) + "; j_ += kdt_nt) " + acc + "p = " + op + "(" +
                    acc + "p, " + value(src + "[j_]") + ");");
            w_.line("const " + acc_t + " " + acc + " = kdt_cu::block_reduce(" + acc + "p, kdt_red, " + op + ");");
          }
          if (shape.empty()) {
            w_.line(name + " = " + finish(acc) + ";");
          } else {
            LoopCtx ctx = new_ctx(shape);
            open_loop(ctx);
            w_.line(name + "[" + ctx.flat + "] = " + finish(acc) + ";");
            close_loop();
          }
        } else {
          size_t axis = static_cast<size_t>(e.index);
          int64_t outer = 1, inner = 1;
          for (size_t d = 0; d < axis; ++d) outer *= xs[d];
          for (size_t d = axis + 1; d < xs.size(); ++d) inner *= xs[d];
          int64_t len = xs[axis];
          // One output element per thread, reduced in order.
          std::string o = fresh("o");
          std::string at = "(" + o + " / " + std::to_string(inner) + ") * " + std::to_string(len * inner) + " + " + o +
                           " % " + std::to_string(inner);
          if (shape.empty()) {
            // A rank-1 reduce along its only axis, without keepdims: like the full reduction.
            w_.line("// (axis reduction to a scalar)");
          }
          w_.line("__syncthreads();");
          w_.open(shape.empty() ? "{" : "for (int64_t " + o + " = kdt_tid; " + o + " < " + std::to_string(outer * inner) + "; " +
                                            o + " += kdt_nt) {");
          if (shape.empty()) w_.line("const int64_t " + o + " = 0;");
          w_.line(acc_t + " acc_ = " + (sum ? acc_t + "()" : value(src + "[" + at + "]")) + ";");
          w_.line("for (int64_t r_ = 0; r_ < " + std::to_string(len) + "; ++r_) acc_ = " + op + "(acc_, " +
                  value(src + "[" + at + " + r_ * " + std::to_string(inner) + "]") + ");");
          w_.line((shape.empty() ? name : name + "[" + o + "]") + " = " + finish("acc_") + ";");
          w_.close();
          w_.line("__syncthreads();");
        }
        break;
      }
      case ExprKind::Dot: {
        const Expr& a = *e.operands[0];
        const Expr& b = *e.operands[1];
        std::string ap = materialize_array(a), bp = materialize_array(b);
        int64_t M = a.type.shape[0], K = a.type.shape[1], N = b.type.shape[1];
        DType in = a.type.dtype;
        std::string acc_t = is_float(in) ? "float" : "int32_t";
        auto widen = [&](const std::string& v) {
          if (in == DType::F32 || in == DType::I32) return v;
          return "kdt_cu::convert<" + acc_t + ">(" + v + ")";
        };
        declare_temp(e, name);
        // Each thread computes whole output elements from shared memory.
        w_.line("__syncthreads();");
        w_.open("for (int64_t o_ = kdt_tid; o_ < " + std::to_string(M * N) + "; o_ += kdt_nt) {");
        w_.line("const int64_t r_ = o_ / " + std::to_string(N) + ", c_ = o_ % " + std::to_string(N) + ";");
        w_.line(acc_t + " acc_ = " + acc_t + "();");
        w_.line("for (int64_t k_ = 0; k_ < " + std::to_string(K) + "; ++k_) acc_ = kdt_cu::op_add(acc_, kdt_cu::op_mul(" +
                widen(ap + "[r_ * " + std::to_string(K) + " + k_]") + ", " + widen(bp + "[k_ * " + std::to_string(N) + " + c_]") +
                "));");
        w_.line(name + "[o_] = acc_;");
        w_.close();
        w_.line("__syncthreads();");
        break;
      }
      case ExprKind::Transpose: {
        std::string src = materialize_array(*e.operands[0]);
        int64_t R = e.operands[0]->type.shape[0], C = e.operands[0]->type.shape[1];
        declare_temp(e, name);
        LoopCtx ctx = new_ctx(shape);  // [C, R]
        open_loop(ctx);
        w_.line(name + "[" + ctx.flat + "] = " + src + "[" + ctx.index[1] + " * " + std::to_string(C) + " + " + ctx.index[0] + "];");
        close_loop();
        (void)R;
        break;
      }
      case ExprKind::Reshape: {
        std::string src = materialize_array(*e.operands[0]);
        if (shape.empty()) {
          w_.line(T + " " + name + " = " + (e.operands[0]->type.shape.empty() ? src : src + "[0]") + ";");
          materialized_[&e] = name;
          return name;
        }
        if (e.operands[0]->type.shape.empty()) {
          declare_temp(e, name);
          w_.line("__syncthreads();");
          w_.line("if (kdt_tid == 0) " + name + "[0] = " + src + ";");
          w_.line("__syncthreads();");
          break;
        }
        materialized_[&e] = src;
        return src;
      }
      case ExprKind::TileSlice: {
        const Expr& x = *e.operands[0];
        std::string src = materialize_array(x);
        std::vector<int64_t> st = strides_of(x.type.shape);
        LoopCtx ctx = new_ctx(shape);
        std::string offset;
        size_t vd = 0;
        for (size_t d = 0; d < e.tile_dims.size(); ++d) {
          const ir::ViewDim& dim = e.tile_dims[d];
          std::string coord = std::to_string(dim.static_start);
          if (!dim.dropped) coord += " + " + ctx.index[vd++];
          offset += (offset.empty() ? "" : " + ") + ("(" + coord + ") * " + std::to_string(st[d]));
        }
        if (offset.empty()) offset = "0";
        if (shape.empty()) {
          w_.line(T + " " + name + " = " + (x.type.shape.empty() ? src : src + "[" + offset + "]") + ";");
          break;
        }
        declare_temp(e, name);
        open_loop(ctx);
        w_.line(name + "[" + ctx.flat + "] = " + src + "[" + offset + "];");
        close_loop();
        break;
      }
      default: {
        declare_temp(e, name);
        if (shape.empty()) w_.line(name + " = " + scalar(e) + ";");
        else store_tile(name, shape, e);
        break;
      }
    }
    materialized_[&e] = name;
    return name;
  }

  std::string materialize_array(const Expr& e) {
    if (e.kind == ExprKind::Local) return local_name(e.local);
    if (e.kind == ExprKind::AsmOutput) return asm_outputs_.at(e.asm_id)[e.index];
    if (auto it = materialized_.find(&e); it != materialized_.end()) return it->second;
    if (e.kind == ExprKind::Reduce || e.kind == ExprKind::Dot || e.kind == ExprKind::Transpose ||
        e.kind == ExprKind::Reshape || e.kind == ExprKind::TileSlice) {
      return materialize(e);
    }
    std::string name = fresh("t");
    if (e.type.shape.empty()) {
      std::string v = scalar(e);
      w_.line(ctype(e.type.dtype) + " " + name + " = " + v + ";");
    } else {
      declare_temp(e, name);
      store_tile(name, e.type.shape, e);
    }
    materialized_[&e] = name;
    return name;
  }

  bool reads_ref(const Expr& e, int ref) {
    if (e.kind == ExprKind::Load && e.view->ref == ref) return true;
    for (const ir::ExprPtr& o : e.operands) {
      if (reads_ref(*o, ref)) return true;
    }
    return (e.mask && reads_ref(*e.mask, ref)) || (e.other && reads_ref(*e.other, ref));
  }

  // `r[v] = r[v] * 2`: each element is read by the thread that writes it.
  bool same_elements(const Expr& e, const ir::View& v) {
    if (e.kind == ExprKind::Load) return e.view->ref != v.ref || (!e.mask && same_view(*e.view, v));
    if (materialized_.count(&e)) return true;
    if (e.kind == ExprKind::Reduce || e.kind == ExprKind::Dot || e.kind == ExprKind::Transpose ||
        e.kind == ExprKind::Reshape || e.kind == ExprKind::TileSlice) {
      return false;
    }
    if (e.kind == ExprKind::Broadcast && e.type.shape != e.operands[0]->type.shape) return !reads_ref(e, v.ref);
    for (const ir::ExprPtr& o : e.operands) {
      if (!same_elements(*o, v)) return false;
    }
    return true;
  }

  static bool same_view(const ir::View& a, const ir::View& b) {
    if (a.ref != b.ref) return false;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const ir::ViewDim& x = a.dims[d];
      const ir::ViewDim& y = b.dims[d];
      if (x.start || y.start || x.static_start != y.static_start || x.size != y.size || x.dropped != y.dropped) return false;
    }
    return true;
  }

  void store_view(const ir::Stmt& s) {
    const ir::View& v = *s.view;
    Shape vshape = v.shape();
    prepare(*s.value);
    if (s.mask) prepare(*s.mask);
    std::vector<std::string> starts = view_starts(v);
    // A value that reads the destination is computed in full first (its
    // elements may come from other threads' elements).
    std::string value_array;
    if (!vshape.empty() && reads_ref(*s.value, v.ref) && !same_elements(*s.value, v)) {
      value_array = materialize_array(*s.value);
    }
    LoopCtx ctx = new_ctx(vshape);
    open_loop(ctx);
    std::string target = ref_base(v.ref) + "[" + view_elem_offset(v, starts, ctx.index) + "]";
    std::string value = value_array.empty() ? elem(*s.value, ctx) : index_of(value_array, s.value->type.shape, ctx);
    DType t = k_.refs[v.ref].dtype;
    static const char* const ops[] = {"", "kdt_cu::op_add", "kdt_cu::op_sub", "kdt_cu::op_mul"};
    if (s.store_op != ir::StoreOp::Assign) {
      value = std::string(ops[static_cast<int>(s.store_op)]) + "<" + ctype(t) + ">(" + target + ", " + value + ")";
    }
    if (s.mask) w_.line("if (" + elem(*s.mask, ctx) + ") " + target + " = " + value + ";");
    else w_.line(target + " = " + value + ";");
    close_loop();
  }

  // ----- DMAs ---------------------------------------------------------------------------------
  static size_t contiguous_tail(const ir::View& v, const Shape& ref_shape) {
    size_t view_dims = 0, tail = 0;
    for (size_t d = ref_shape.size(); d-- > 0;) {
      const ir::ViewDim& dim = v.dims[d];
      if (dim.dropped) break;
      bool full = !dim.start && dim.static_start == 0 && dim.size == ref_shape[d];
      ++view_dims;
      tail = view_dims;
      if (!full) break;
    }
    return tail;
  }

  // The dtypes cp.reduce.async.bulk .add takes (i64 as .u64; f16/bf16 with .noftz).
  static bool bulk_add_dtype(DType t) {
    switch (t) {
      case DType::I32:
      case DType::U32:
      case DType::I64:
      case DType::U64:
      case DType::F16:
      case DType::BF16:
      case DType::F32:
      case DType::F64: return true;
      default: return false;
    }
  }

  // Whether every row of a DMA can move in `width`-byte pieces: the row
  // length and both views' outer strides are multiples of `width` bytes.
  bool rows_divisible(const ir::View& src, const ir::View& dst, size_t tail, int64_t row_bytes, int64_t width) const {
    if (row_bytes % width != 0) return false;
    for (const ir::View* v : {&src, &dst}) {
      const ir::Ref& r = k_.refs[v->ref];
      std::vector<int64_t> st = strides_of(r.shape);
      for (size_t d = 0; d + tail < r.shape.size(); ++d) {
        if (!v->dims[d].dropped && (st[d] * elem_size(r.dtype)) % width != 0) return false;
      }
    }
    return true;
  }

  void dma_start(const ir::Stmt& s) {
    const ir::View& src = *s.src;
    const ir::View& dst = *s.dst;
    const ir::Ref& sr = k_.refs[src.ref];
    const ir::Ref& dr = k_.refs[dst.ref];
    DType t = sr.dtype;
    Shape shape = src.shape();
    int64_t esize = elem_size(t);
    int64_t bytes = count_of(shape) * esize;
    if (multi_device() && (s.device || sync_sem(s.sem.sem))) return device_dma_start(s);
    w_.open("{  // DMA: " + std::string(s.add ? "dst += src" : "dst = src") + ", " + std::to_string(bytes) + " bytes");
    std::vector<std::string> ss = view_starts(src), ds = view_starts(dst);
    if (s.device) w_.line("(void)(" + scalar(*s.device) + ");  // one device: the target is this device");
    const std::string semname = k_.sems[s.sem.sem].name;
    std::string q = "kdt_q_" + semname + "[" + sem_index(s.sem) + "]";
    // Choose the lowering.
    enum { Coop, G2S, S2G, S2GAdd, G2SAsync } kind = Coop;
    bool g2s = sr.space == MemSpace::Global && dr.space == MemSpace::Shared;
    bool s2g = sr.space == MemSpace::Shared && dr.space == MemSpace::Global;
    if (use_bulk() && !s.src_sem && bar_off_.count(s.sem.sem)) {
      if (g2s && !s.add) kind = G2S;
      else if (s2g && !s.add) kind = S2G;
      // Peers may add into the same memory with system-scope atomics.
      else if (s2g && s.add && bulk_add_dtype(t) && !multi_device()) kind = S2GAdd;
    }
    size_t rank = shape.size();
    size_t tail = std::min(contiguous_tail(src, sr.shape), contiguous_tail(dst, dr.shape));
    if (rank == 0) tail = 0;
    int64_t chunk = 1;
    for (size_t i = rank - tail; i < rank; ++i) chunk *= shape[i];
    int64_t row_bytes = chunk * esize;
    // Row 0 is checked for alignment at run time; the other rows differ from
    // it by multiples of the outer strides, checked here. A bulk copy into
    // shared memory always fits one mbarrier phase (2^20-1 bytes): no block
    // has that much shared memory; the check only guards future limits.
    if (kind != Coop && !(rows_divisible(src, dst, tail, row_bytes, 16) && (kind != G2S || bytes <= kMaxTx))) kind = Coop;
    // sm_80+: cp.async of 16, 8 or 4 bytes by every thread, completed on the
    // slot's mbarrier (cp.async.mbarrier.arrive).
    int width = 0;
    if (kind == Coop && g2s && !s.add && !s.src_sem && bar_off_.count(s.sem.sem)) {
      for (int w : {16, 8, 4}) {
        if (rows_divisible(src, dst, tail, row_bytes, w)) {
          width = w;
          kind = G2SAsync;
          break;
        }
      }
    }
    std::string bar = "kdt_bar_" + semname + " + " + sem_index(s.sem) + " * " + std::to_string(kQueue * 8) +
                      " + 8 * kdt_cu::dma_next_slot(" + q + ")";
    if (kind == G2SAsync) {
      std::vector<std::string> zero(rank, "0");
      std::string s0 = ref_base(src.ref) + " + " + view_elem_offset(src, ss, zero);
      std::string d0 = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, zero);
      w_.line("const bool kdt_async = KDT_HAS_CP_ASYNC && ((reinterpret_cast<uintptr_t>(" + s0 +
              ") | reinterpret_cast<uintptr_t>(" + d0 + ")) & " + std::to_string(width - 1) + ") == 0;");
      w_.open("if (kdt_async) {");
      w_.line("__syncthreads();");
      int64_t per_row = row_bytes / width;
      int64_t rows = count_of(shape) / std::max<int64_t>(chunk, 1);
      w_.open("for (int64_t c_ = kdt_tid; c_ < " + std::to_string(rows * per_row) + "; c_ += kdt_nt) {");
      w_.line("const int64_t row_ = c_ / " + std::to_string(per_row) + ", col_ = c_ % " + std::to_string(per_row) + ";");
      w_.line("(void)row_;");
      // Outer (row) indices from row_, row-major over the non-tail dims.
      std::vector<std::string> idx;
      int64_t stride = 1;
      std::vector<std::string> outer(rank - tail);
      for (size_t i = rank - tail; i-- > 0;) {
        outer[i] = "((row_ / " + std::to_string(stride) + ") % " + std::to_string(shape[i]) + ")";
        stride *= shape[i];
      }
      for (size_t i = 0; i < rank - tail; ++i) idx.push_back(outer[i]);
      for (size_t i = rank - tail; i < rank; ++i) idx.push_back("0");
      std::string sp = ref_base(src.ref) + " + " + view_elem_offset(src, ss, idx);
      std::string dp = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, idx);
      std::string w = std::to_string(width);
      w_.line("kdt_cu::cp_async<" + w + ">(reinterpret_cast<unsigned char*>(" + dp + ") + col_ * " + w +
              ", reinterpret_cast<const unsigned char*>(" + sp + ") + col_ * " + w + ");");
      w_.close();
      w_.line("kdt_cu::cp_async_complete_on(" + bar + ");");
      w_.line("kdt_cu::dma_push(" + q + ", 1);");
      w_.reopen("} else {");
    }
    if (kind != Coop && kind != G2SAsync) {
      std::vector<std::string> zero(rank, "0");
      std::string s0 = ref_base(src.ref) + " + " + view_elem_offset(src, ss, zero);
      std::string d0 = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, zero);
      w_.line("const bool kdt_bulk = KDT_HAS_BULK && ((reinterpret_cast<uintptr_t>(" + s0 + ") | reinterpret_cast<uintptr_t>(" +
              d0 + ")) & 15) == 0;");
      w_.open("if (kdt_bulk) {");
      // Generic-proxy accesses of the shared side (by every thread) come
      // before the async proxy's: each thread fences, then the barrier.
      w_.line("kdt_cu::fence_proxy_async_shared();");
      w_.line("__syncthreads();");
      w_.open("if (kdt_tid == 0) {");
      if (kind == G2S) w_.line("kdt_cu::mbar_expect_tx(" + bar + ", " + std::to_string(bytes) + "u);");
      std::vector<std::string> idx;
      for (size_t i = 0; i < rank - tail; ++i) {
        std::string v = "r" + std::to_string(i) + "_";
        w_.open("for (int64_t " + v + " = 0; " + v + " < " + std::to_string(shape[i]) + "; ++" + v + ") {");
        idx.push_back(v);
      }
      for (size_t i = rank - tail; i < rank; ++i) idx.push_back("0");
      std::string sp = ref_base(src.ref) + " + " + view_elem_offset(src, ss, idx);
      std::string dp = ref_base(dst.ref) + " + " + view_elem_offset(dst, ds, idx);
      std::string rb = std::to_string(row_bytes) + "u";
      if (kind == G2S) w_.line("kdt_cu::bulk_g2s(" + dp + ", " + sp + ", " + rb + ", " + bar + ");");
      else if (kind == S2G) w_.line("kdt_cu::bulk_s2g(" + dp + ", " + sp + ", " + rb + ");");
      else w_.line("kdt_cu::bulk_s2g_add(" + dp + ", " + sp + ", " + rb + ");");
      for (size_t i = 0; i < rank - tail; ++i) w_.close();
      if (kind != G2S) w_.line("kdt_cu::bulk_commit();");
      w_.close();
      w_.line("kdt_cu::dma_push(" + q + ", " + std::string(kind == G2S ? "1" : "2") + ");");
      w_.reopen("} else {");
    }
    // The cooperative path: the whole block copies (or accumulates), then a barrier.
    {
      LoopCtx ctx = new_ctx(shape);
      open_loop(ctx);
      std::string sp = ref_base(src.ref) + "[" + view_elem_offset(src, ss, ctx.index) + "]";
      std::string dp = ref_base(dst.ref) + "[" + view_elem_offset(dst, ds, ctx.index) + "]";
      if (!s.add) w_.line(dp + " = " + sp + ";");
      else if (dr.space == MemSpace::Global) w_.line(atomic_add() + "(&" + dp + ", " + sp + ");");
      else w_.line(dp + " = kdt_cu::op_add<" + ctype(t) + ">(" + dp + ", " + sp + ");");
      close_loop();
      w_.line("kdt_cu::dma_push(" + q + ", 0);");
    }
    if (kind != Coop) w_.close();
    if (s.src_sem) source_read(s);  // a remote DMA to this device: the source was read with the copy
    w_.close();
  }

  // A remote DMA's source has been read: its `src_sem` completes now.
  void source_read(const ir::Stmt& s) {
    if (sync_sem(s.src_sem->sem)) {
      w_.line("kdt_cu::signal_sys(" + sync_counter(*s.src_sem) + ", " + std::to_string(s.bytes) + ");");
    } else {
      w_.line("kdt_cu::dma_push(kdt_q_" + k_.sems[s.src_sem->sem].name + "[" + sem_index(*s.src_sem) + "], 0);");
    }
  }

  // Peers may add into the same @global memory: system scope then.
  std::string atomic_add() const { return multi_device() ? "kdt_cu::atomic_add<true>" : "kdt_cu::atomic_add"; }

  // devices(N) > 1, a DMA whose destination semaphore another device may
  // raise (a remote DMA, or a local one on such a semaphore): the block
  // copies through the destination device's peer pointer, then raises the
  // semaphore's counter there by the byte count (system-scope release).
  // The source has been read when the copy is done: `src_sem` completes at once.
  void device_dma_start(const ir::Stmt& s) {
    const ir::View& src = *s.src;
    const ir::View& dst = *s.dst;
    DType t = k_.refs[src.ref].dtype;
    Shape shape = src.shape();
    w_.open("{  // DMA to device " + std::string(s.device ? "`device`" : "self") + ": " + (s.add ? "dst += src" : "dst = src") +
            ", " + std::to_string(s.bytes) + " bytes");
    std::vector<std::string> ss = view_starts(src), ds = view_starts(dst);
    std::string device = "kdt_device";
    if (s.device) {
      device = fresh("device");
      w_.line("const int32_t " + device + " = " + scalar(*s.device) + ";");
    }
    std::string base = ref_base(dst.ref);
    if (s.device) {
      base = fresh("peer");
      w_.line(ctype(t) + "* const " + base + " = kdt_peers." + k_.refs[dst.ref].name + "[" + device + "];");
    }
    LoopCtx ctx = new_ctx(shape);
    open_loop(ctx);
    std::string sp = ref_base(src.ref) + "[" + view_elem_offset(src, ss, ctx.index) + "]";
    std::string dp = base + "[" + view_elem_offset(dst, ds, ctx.index) + "]";
    if (!s.add) w_.line(dp + " = " + sp + ";");
    else if (k_.refs[dst.ref].space == MemSpace::Global) w_.line(atomic_add() + "(&" + dp + ", " + sp + ");");
    else w_.line(dp + " = kdt_cu::op_add<" + ctype(t) + ">(" + dp + ", " + sp + ");");
    close_loop();
    if (s.src_sem) source_read(s);
    w_.line("kdt_cu::signal_sys(" + sync_counter(s.sem, device) + ", " + std::to_string(s.bytes) + ");");
    w_.close();
  }

  // ----- inline PTX ---------------------------------------------------------------------------------
  static const char* constraint(DType t) {
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
  static std::string carrier(DType t) {
    std::string c = constraint(t);
    if (c == "h") return "unsigned short";
    if (c == "r") return "unsigned int";
    if (c == "l") return "unsigned long long";
    if (c == "f") return "float";
    return "double";
  }
  static std::string to_carrier(DType t, const std::string& v) {
    if (t == DType::F16) return "__half_as_ushort(" + v + ")";
    if (t == DType::BF16) return "__bfloat16_as_ushort(" + v + ")";
    if (t == DType::F32 || t == DType::F64) return v;
    if (t == DType::I8) return "static_cast<unsigned short>(static_cast<uint8_t>(" + v + "))";
    return "static_cast<" + carrier(t) + ">(" + v + ")";
  }
  static std::string from_carrier(DType t, const std::string& v) {
    if (t == DType::F16) return "__ushort_as_half(" + v + ")";
    if (t == DType::BF16) return "__ushort_as_bfloat16(" + v + ")";
    if (t == DType::Bool) return "(" + v + " != 0u)";
    if (t == DType::F32 || t == DType::F64) return v;
    return "static_cast<" + ctype(t) + ">(" + v + ")";
  }

  // The template with `%name` renamed to `%N` (outputs first), as C string pieces.
  std::string asm_template(const ir::AsmBlock& a) {
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

  void asm_stmt(const ir::Stmt& s) {
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
    for (const ir::ExprPtr& v : a.input_values) prepare(*v);
    LoopCtx ctx = new_ctx(a.shape);
    if (a.shape.empty()) {
      w_.open("{");  // every thread runs a scalar asm (scalars are computed redundantly)
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
      w_.line(outs[i] + (a.shape.empty() ? "" : "[" + ctx.flat + "]") + " = " + from_carrier(t, "o" + std::to_string(i) + "_") + ";");
    }
    if (a.shape.empty()) w_.close();
    else close_loop();
    top_ = mark;
  }

  const ir::Kernel& k_;
  const SourceManager& sources_;
  const CudaEmitOptions& options_;
  DiagnosticEngine& diags_;
  emit::CodeWriter& out_;
  emit::CodeWriter w_;
  int arch_;
  int threads_ = 128;
  int64_t top_ = 0, peak_ = 0, red_off_ = 0;
  int next_temp_ = 0;
  std::map<int, int64_t> ref_off_, bar_off_;
  std::map<int, int64_t> sync_base_;  // devices(N) > 1: semaphore -> first counter slot
  int64_t sync_slots_ = 0;           // counters per program
  std::set<int> peer_refs_;          // refs written by remote DMAs
  std::map<const Expr*, std::string> materialized_;
  std::map<const Expr*, std::vector<std::string>> view_starts_;
  std::map<int, std::vector<std::string>> asm_outputs_;
};

}  // namespace

bool emit_cuda(const ir::Module& module, const SourceManager& sources, const CudaEmitOptions& options,
               DiagnosticEngine& diags, std::string& out) {
  emit::CodeWriter w(sources);
  w.line("// Generated by kdt " KDT_VERSION " from " + options.input_name + " for " + options.arch + ". Do not edit.");
  w.line("// Build: nvcc -std=c++17 -arch=" + options.arch + " -c FILE.cu   (or NVRTC: kdt --emit=ptx)");
  w.line("// The kdt CUDA runtime (include/kdt/runtime/cuda/kdt_cuda.h) is embedded below.");
  w.set_line_directives(false);
  w.raw(kCudaPrelude);
  w.line();
  w.line("// ===== kernels =====");
  w.line("namespace kdt_kernels {");
  w.line();
  bool ok = true;
  for (const ir::Kernel& k : module.kernels) {
    emit::CodeWriter kw(sources);
    if (KernelEmitter(k, sources, options, diags, kw).emit()) w.raw(kw.str());
    else ok = false;
  }
  w.line("}  // namespace kdt_kernels");
  if (!ok) return false;
  out = w.str();
  return true;
}

}  // namespace kdt
