namespace kdt_kernels {

// Parameters of kernel `ring_exchange`: one pointer per ref (row-major), scalars by value.
struct ring_exchange_params {
  const float* x;  // f32[128, 64] @global, in
  float* recv;  // f32[128, 64] @global
  float* mixed;  // f32[128, 64] @global
};

// Scratch buffers and semaphores of one program (one instance per program).
struct ring_exchange_program_state {
  kdt_rt::RegularSemaphore ready[1];
  kdt_rt::DmaSemaphore send_sem[1];
  kdt_rt::DmaSemaphore recv_sem[1];
  kdt_rt::RegularSemaphore acked[1];
  kdt_rt::ProgramClock clock;  // happens-before, for the cross-program race check
  int64_t program[1];  // program ids
  int64_t flat = 0;  // flattened program index
};

struct ring_exchange_launch {
  std::vector<ring_exchange_params> params;  // one set per device
  std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device
  kdt_rt::RunOptions options;
  kdt_rt::DeviceScheduler scheduler{4};
  // By device * programs + flat index; ordered, so that the launch-end checks are deterministic.
  std::map<int64_t, std::unique_ptr<ring_exchange_program_state>> states;
  ring_exchange_program_state& state(int device, int64_t flat) {
    auto& slot = states[int64_t{device} * 4 + flat];
    if (!slot) {
      slot = std::make_unique<ring_exchange_program_state>();
      init(*slot, device, flat);
    }
    return *slot;
  }
  static void init(ring_exchange_program_state& s, int device, int64_t flat) {
    (void)device;
    s.flat = flat;
    s.clock.init(device, flat, 4);
    s.program[0] = flat / 1 % 4;
  }
};

// DMA #0: dst = src over 8192 bytes.
static void ring_exchange_dma0(ring_exchange_launch& L, const kdt_rt::DmaRecord& d) {
  const ring_exchange_params& sp = L.params[static_cast<size_t>(d.src_device)];
  const ring_exchange_params& dp = L.params[static_cast<size_t>(d.dst_device)];
  ring_exchange_program_state& ss = L.state(d.src_device, d.program);
  ring_exchange_program_state& ds = L.state(d.dst_device, d.program);
  const int64_t* starts = d.starts;
  (void)sp, (void)dp, (void)ss, (void)ds, (void)starts;
  std::memcpy(dp.recv + (starts[1]) * 64, sp.x + (starts[0]) * 64, 2048 * sizeof(float));
}

[[maybe_unused]] static void ring_exchange_run_dma(ring_exchange_launch& L, kdt_rt::DmaRecord& d) {
  (void)L;
  switch (d.site) {
    case 0: ring_exchange_dma0(L, d); break;
    default: break;
  }
  d.landed = true;
}

// One program of `ring_exchange`.
static void ring_exchange_program(ring_exchange_launch& L, int device, ring_exchange_program_state& s) {
  const ring_exchange_params& p = L.params[static_cast<size_t>(device)];
  const kdt_rt::RunOptions& options = L.options;
  (void)p, (void)options;
#line 25 "samples/ring_exchange.kd"
  [[maybe_unused]] const int32_t i = static_cast<int32_t>(s.program[0]);
  [[maybe_unused]] const int32_t me = static_cast<int32_t>(device);
  [[maybe_unused]] const int32_t n = int32_t(4);
  [[maybe_unused]] const int32_t right = kdt_rt::int_rem<int32_t>(kdt_rt::op_add(me, int32_t(1)), kdt_rt::checked_divisor<int32_t>(n, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 28, 17, 869, 881}));
  [[maybe_unused]] const int32_t left = kdt_rt::int_rem<int32_t>(kdt_rt::op_sub(kdt_rt::op_add(me, n), int32_t(1)), kdt_rt::checked_divisor<int32_t>(n, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 29, 16, 898, 914}));
#line 32
  {
#line 32
    auto& sem_ = L.state(kdt_rt::checked_device(left, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 32, 33, 1019, 1023}), s.flat).ready[0];
#line 32
    sem_.value += int32_t(1);
#line 32
    kdt_rt::release(sem_, s.clock);
#line 32
  }
  {
#line 33
    auto& sem_ = L.state(kdt_rt::checked_device(right, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 33, 33, 1058, 1063}), s.flat).ready[0];
#line 33
    sem_.value += int32_t(1);
#line 33
    kdt_rt::release(sem_, s.clock);
#line 33
  }
  {
#line 34
    auto& sem_ = s.ready[0];
#line 34
    const int64_t amount_ = int32_t(2);
#line 34
    L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {"sem_wait on `ready` (value " + std::to_string(sem_.value) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 34, 5, 1070, 1089}, s.flat});
#line 34
    sem_.value -= amount_;
#line 34
    kdt_rt::acquire(s.clock, sem_);
#line 34
  }
#line 38
  auto dma0 = std::make_shared<kdt_rt::DmaRecord>();
#line 38
  dma0->site = 0;
#line 38
  dma0->bytes = 8192;
#line 38
  dma0->src_device = device;
#line 38
  dma0->dst_device = kdt_rt::checked_device(right, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 39, 40, 1325, 1330});
#line 38
  dma0->program = s.flat;
#line 38
  dma0->loc = kdt_rt::SourceLoc{"samples/ring_exchange.kd", 38, 5, 1219, 1333};
#line 38
  dma0->starts[0] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32))), 32, 128, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 38, 20, 1234, 1240}, "DMA source index");
#line 38
  dma0->starts[1] = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32))), 32, 128, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 38, 45, 1259, 1265}, "DMA destination index");
#line 38
  dma0->src_box = kdt_rt::Box{2, {dma0->starts[0], 0}, {32, 64}};
#line 38
  dma0->dst_box = kdt_rt::Box{2, {dma0->starts[1], 0}, {32, 64}};
#line 38
  dma0->add = false;
#line 38
  dma0->src_shadow = &L.shadows[static_cast<size_t>(device) * 3 + 0];
#line 38
  dma0->dst_shadow = &L.shadows[static_cast<size_t>(dma0->dst_device) * 3 + 1];
#line 38
  dma0->dst_sem = &L.state(dma0->dst_device, s.flat).recv_sem[0];
#line 38
  dma0->has_src_sem = true;
#line 38
  kdt_rt::claim_dma(dma0, s.clock);
#line 38
  if (options.eager_dma) ring_exchange_run_dma(L, *dma0);
#line 38
  L.state(dma0->dst_device, s.flat).recv_sem[0].in_flight.push_back(dma0);
#line 38
  s.send_sem[0].in_flight.push_back(dma0);
#line 40
  {
#line 40
    auto& sem_ = s.send_sem[0];
#line 40
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `send_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 40, 5, 1338, 1379}, s.flat});
#line 40
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 8192, options);
#line 40
    if (d_->bytes != 8192) {
#line 40
      kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 8192 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 40, 5, 1338, 1379}, {{"the DMA was started here", d_->loc}}};
#line 40
      throw kdt_rt::RunFailure{e_};
#line 40
    }
#line 40
    kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 40
    if (!d_->landed) ring_exchange_run_dma(L, *d_);
#line 40
  }
  {
#line 41
    auto& sem_ = s.recv_sem[0];
#line 41
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `recv_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 41, 5, 1417, 1461}, s.flat});
#line 41
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 8192, options);
#line 41
    if (d_->bytes != 8192) {
#line 41
      kdt_rt::RunError e_{kdt_rt::Code::DmaWaitMismatch, "this wait is for 8192 bytes, but the DMA it retires moves " + std::to_string(d_->bytes) + " bytes", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 41, 5, 1417, 1461}, {{"the DMA was started here", d_->loc}}};
#line 41
      throw kdt_rt::RunFailure{e_};
#line 41
    }
#line 41
    kdt_rt::retire_claims(*d_, &sem_, s.clock);
#line 41
    if (!d_->landed) ring_exchange_run_dma(L, *d_);
#line 41
  }
#line 45
  {
#line 45
    auto& sem_ = L.state(kdt_rt::checked_device(left, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 45, 33, 1671, 1675}), s.flat).acked[0];
#line 45
    sem_.value += int32_t(1);
#line 45
    kdt_rt::release(sem_, s.clock);
#line 45
  }
  {
#line 46
    auto& sem_ = s.acked[0];
#line 46
    const int64_t amount_ = int32_t(1);
#line 46
    L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {"sem_wait on `acked` (value " + std::to_string(sem_.value) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 46, 5, 1682, 1698}, s.flat});
#line 46
    sem_.value -= amount_;
#line 46
    kdt_rt::acquire(s.clock, sem_);
#line 46
  }
#line 48
  const int64_t start1 = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32))), 32, 128, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 48, 44, 1743, 1749}, "index");
#line 48
  [[maybe_unused]] static const kdt_rt::SourceLoc site2 = kdt_rt::SourceLoc{"samples/ring_exchange.kd", 48, 39, 1738, 1758};
#line 48
  kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 3 + 0], kdt_rt::Box{2, {start1, 0}, {32, 64}}, kdt_rt::Access::Read, s.clock, &site2);
#line 48
  const int64_t start3 = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32))), 32, 128, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 48, 70, 1769, 1775}, "index");
#line 48
  [[maybe_unused]] static const kdt_rt::SourceLoc site4 = kdt_rt::SourceLoc{"samples/ring_exchange.kd", 48, 62, 1761, 1784};
#line 48
  kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 3 + 1], kdt_rt::Box{2, {start3, 0}, {32, 64}}, kdt_rt::Access::Read, s.clock, &site4);
#line 48
  const int64_t start5 = kdt_rt::checked_index(static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32))), 32, 128, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 48, 14, 1713, 1719}, "index");
#line 48
  [[maybe_unused]] static const kdt_rt::SourceLoc site6 = kdt_rt::SourceLoc{"samples/ring_exchange.kd", 48, 5, 1704, 1786};
#line 48
  kdt_rt::check_access(L.shadows[static_cast<size_t>(device) * 3 + 2], kdt_rt::Box{2, {start5, 0}, {32, 64}}, kdt_rt::Access::Write, s.clock, &site6);
#line 48
  {
#line 48
    int64_t f7 = 0;
#line 48
    (void)f7;
#line 48
    for (int64_t i7_0 = 0; i7_0 < 32; ++i7_0) {
#line 48
      for (int64_t i7_1 = 0; i7_1 < 64; ++i7_1) {
#line 48
        p.mixed[(start5 + i7_0) * 64 + (i7_1)] = kdt_rt::op_mul(0x1p-1f, kdt_rt::op_add(p.x[(start1 + i7_0) * 64 + (i7_1)], p.recv[(start3 + i7_0) * 64 + (i7_1)]));
#line 48
        ++f7;
#line 48
      }
#line 48
    }
#line 48
  }
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 49
    if (s.ready[k_].value != 0) {
#line 49
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `ready` is " + std::to_string(s.ready[k_].value) + " when the program ends; it must be back at 0");
#line 49
    }
#line 49
  }
#line 49
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 49
    if (!s.send_sem[k_].in_flight.empty()) {
#line 49
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.send_sem[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `send_sem`");
#line 49
    }
#line 49
  }
#line 49
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 49
    if (!s.recv_sem[k_].in_flight.empty()) {
#line 49
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.recv_sem[k_].in_flight.front()->loc, "this DMA is never retired: the program ends with it in flight on `recv_sem`");
#line 49
    }
#line 49
  }
#line 49
  for (int64_t k_ = 0; k_ < 1; ++k_) {
#line 49
    if (s.acked[k_].value != 0) {
#line 49
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `acked` is " + std::to_string(s.acked[k_].value) + " when the program ends; it must be back at 0");
#line 49
    }
#line 49
  }
#line 49
}
#line 5381 "<stdout>"

// Semaphores of every program when the launch ends (remote DMAs and signals may arrive after a program ended).
[[maybe_unused]] static void ring_exchange_launch_end_checks(ring_exchange_launch& L) {
  for (const auto& [key_, state_] : L.states) {
    ring_exchange_program_state& s = *state_;
    const std::string when_ = "the launch ends (device " + std::to_string(key_ / 4) + ", program " + std::to_string(s.flat) + ")";
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (s.ready[k_].value != 0) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `ready` is " + std::to_string(s.ready[k_].value) + " when " + when_ + "; it must be back at 0");
      }
    }
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (!s.send_sem[k_].in_flight.empty()) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.send_sem[k_].in_flight.front()->loc, "this DMA is never retired: " + when_ + " with it in flight on `send_sem`");
      }
    }
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (!s.recv_sem[k_].in_flight.empty()) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, s.recv_sem[k_].in_flight.front()->loc, "this DMA is never retired: " + when_ + " with it in flight on `recv_sem`");
      }
    }
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (s.acked[k_].value != 0) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `acked` is " + std::to_string(s.acked[k_].value) + " when " + when_ + "; it must be back at 0");
      }
    }
  }
}

// Runs kernel `ring_exchange` over its grid [4] on 4 simulated devices (one pointer per device for each ref).
// Returns 0, or 1 when a run-time check failed (described in *error).
inline int ring_exchange(const float* const* x, float* const* recv, float* const* mixed, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  ring_exchange_launch L;
  L.options = options;
  for (int device = 0; device < 4; ++device) {
    L.params.push_back(ring_exchange_params{x[device], recv[device], mixed[device]});
    L.shadows.emplace_back();
    L.shadows.back().init("x", {128, 64}, false, false);
    L.shadows.emplace_back();
    L.shadows.back().init("recv", {128, 64}, true, true);
    L.shadows.emplace_back();
    L.shadows.back().init("mixed", {128, 64}, true, true);
  }
  const std::vector<int64_t> order = kdt_rt::program_order(4, options);
  kdt_rt::RunError failure;
  bool ok = L.scheduler.run([&](int device) {
    for (int64_t flat : order) {
      ring_exchange_program(L, device, L.state(device, flat));
    }
  }, failure);
  if (ok) {
    try {
      ring_exchange_launch_end_checks(L);
    } catch (const kdt_rt::RunFailure& f) {
      failure = f.error;
      ok = false;
    }
  }
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

}  // namespace kdt_kernels

// ===== XLA FFI handlers (--emit=xla-ffi, docs/c-api.md) =====
// One handler per kernel, `kdt_xla_KERNEL`, for jax.ffi.register_ffi_target(platform="cpu"). Compile
// with the headers jaxlib ships: -isystem $(python -c 'import jax; print(jax.ffi.include_dir())').
#include "xla/ffi/api/ffi.h"

namespace kdt_bind {
// Runs a launch; an exception (memory, threads) is a failure too, never an abort of the caller.
template <class Launch>
int launch(kdt_rt::RunError& failure, Launch&& run) {
  try {
    return run(failure);
  } catch (const std::exception& x) {
    failure.code = kdt_rt::Code::LimitExceeded;
    failure.message = std::string("the launch ran out of resources (") + x.what() + ")";
    return 1;
  }
}
}  // namespace kdt_bind

// The kernels of this file, their parameters (kind, dtype, the shape a caller passes) and the binding.
extern "C" __attribute__((visibility("default"))) const char* kdt_module_json(void) {
  return "{\"abi\":1,\"binding\":\"xla-ffi\",\"checks\":true,\"kernels\":[{\"devices\":4,\"grid\":[4],\"mesh\":[4],\"name\":\"ring_exchange\",\"params\":[{\"dtype\":\"f32\",\"kind\":\"in\",\"name\":\"x\",\"shape\":[4,128,64]},{\"dtype\":\"f32\",\"kind\":\"out\",\"name\":\"recv\",\"shape\":[4,128,64]},{\"dtype\":\"f32\",\"kind\":\"out\",\"name\":\"mixed\",\"shape\":[4,128,64]}],\"symbol\":\"kdt_xla_ring_exchange\"}],\"source\":\"samples/ring_exchange.kd\"}";
}

namespace kdt_bind {
namespace ffi = xla::ffi;
// A failure as the FFI error JAX raises: the message, then the diagnostic's JSON on a line of its own.
static ffi::Error error_of(const kdt_rt::RunError& failure) {
  const kdt_rt::RunError e = kdt_rt::with_call_notes(failure);
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, std::string(e.loc.file ? e.loc.file : "") + ":" +
                    std::to_string(e.loc.line) + ":" + std::to_string(e.loc.column) + ": " + e.message + " [" +
                    e.code.name() + "]\nkdt-diagnostic: " + kdt_rt::failure_json(e));
}
// A buffer of the wrong type or size (a caller that bypassed kdt.jax's checks).
static bool fits(const ffi::AnyBuffer& b, ffi::DataType type, size_t count) {
  return b.element_type() == type && b.element_count() == count;
}
// The run options from the call's attributes.
static bool options(int32_t dma_mode, int32_t dma_order, int32_t program_order, int32_t jobs, int64_t seed, kdt_rt::RunOptions& run) {
  if (dma_mode < 0 || dma_mode > 1 || dma_order < 0 || dma_order > 2 || program_order < 0 || program_order > 2) return false;
  if (jobs < 1 || jobs > 4096) return false;
  run.eager_dma = dma_mode == 1;
  run.dma_order = dma_order;
  run.program_order = program_order;
  run.jobs = jobs;
  run.seed = static_cast<uint64_t>(seed);
  return true;
}
}  // namespace kdt_bind

// Kernel `ring_exchange`.
static kdt_bind::ffi::Error kdt_xla_ring_exchange_impl(kdt_bind::ffi::AnyBuffer x_in, kdt_bind::ffi::Result<kdt_bind::ffi::AnyBuffer> recv_out, kdt_bind::ffi::Result<kdt_bind::ffi::AnyBuffer> mixed_out, int32_t kdt_dma_mode, int32_t kdt_dma_order, int32_t kdt_program_order, int32_t kdt_jobs, int64_t kdt_seed) {
  if (!(kdt_bind::fits(x_in, kdt_bind::ffi::DataType::F32, 32768) && kdt_bind::fits(*recv_out, kdt_bind::ffi::DataType::F32, 32768) && kdt_bind::fits(*mixed_out, kdt_bind::ffi::DataType::F32, 32768))) {
    return kdt_bind::ffi::Error(kdt_bind::ffi::ErrorCode::kInvalidArgument, "kdt: kernel `ring_exchange` was called with buffers of other dtypes or sizes than its parameters");
  }
  kdt_rt::RunOptions run;
  if (!kdt_bind::options(kdt_dma_mode, kdt_dma_order, kdt_program_order, kdt_jobs, kdt_seed, run)) {
    return kdt_bind::ffi::Error(kdt_bind::ffi::ErrorCode::kInvalidArgument, "kdt: invalid run options");
  }
  const float* x = static_cast<const float*>(x_in.untyped_data());
  std::vector<const float*> x_devices_;
  for (int64_t d = 0; d < 4; ++d) x_devices_.push_back(x + d * 8192);
  float* recv = static_cast<float*>(recv_out->untyped_data());
  std::vector<float*> recv_devices_;
  for (int64_t d = 0; d < 4; ++d) recv_devices_.push_back(recv + d * 8192);
  float* mixed = static_cast<float*>(mixed_out->untyped_data());
  std::vector<float*> mixed_devices_;
  for (int64_t d = 0; d < 4; ++d) mixed_devices_.push_back(mixed + d * 8192);
  kdt_rt::RunError failure;
  int status = kdt_bind::launch(failure, [&](kdt_rt::RunError& e) { return kdt_kernels::ring_exchange(x_devices_.data(), recv_devices_.data(), mixed_devices_.data(), run, &e); });
  if (status != 0) return kdt_bind::error_of(failure);
  return kdt_bind::ffi::Error::Success();
}
XLA_FFI_DEFINE_HANDLER_SYMBOL(kdt_xla_ring_exchange, kdt_xla_ring_exchange_impl, kdt_bind::ffi::Ffi::Bind().Arg<kdt_bind::ffi::AnyBuffer>().Ret<kdt_bind::ffi::AnyBuffer>().Ret<kdt_bind::ffi::AnyBuffer>().Attr<int32_t>("kdt_dma_mode").Attr<int32_t>("kdt_dma_order").Attr<int32_t>("kdt_program_order").Attr<int32_t>("kdt_jobs").Attr<int64_t>("kdt_seed"));

