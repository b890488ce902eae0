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
  std::vector<ring_exchange_params> params;  // this rank's, once per device: each rank's have this layout
  std::vector<kdt_rt::RefShadow> shadows;  // ref parameters, per device (this rank's are used)
  kdt_rt::RunOptions options;
  kdt_rt::MpiScheduler scheduler{4};
  char* states = nullptr;  // every program's state, in the window (kdt_mpi.h)
  // Program `flat`'s state; device `device`'s copy is at the same displacement of its window.
  ring_exchange_program_state& state(int device, int64_t flat) {
    (void)device;
    return reinterpret_cast<ring_exchange_program_state*>(states)[flat];
  }
  ~ring_exchange_launch() {
    if (!states) return;
    for (int64_t flat = 0; flat < 4; ++flat) state(0, flat).~ring_exchange_program_state();
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
  L.scheduler.put(d.dst_device, dp.recv + (starts[1]) * 64, sp.x + (starts[0]) * 64, 2048 * sizeof(float));
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
    const int target_ = kdt_rt::checked_device(left, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 32, 33, 1019, 1023});
#line 32
    auto& sem_ = L.state(target_, s.flat).ready[0];
#line 32
    L.scheduler.add(target_, sem_.value, int32_t(1));
#line 32
    if (target_ == device) kdt_rt::release(sem_, s.clock);
#line 32
  }
  {
#line 33
    const int target_ = kdt_rt::checked_device(right, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 33, 33, 1058, 1063});
#line 33
    auto& sem_ = L.state(target_, s.flat).ready[0];
#line 33
    L.scheduler.add(target_, sem_.value, int32_t(1));
#line 33
    if (target_ == device) kdt_rt::release(sem_, s.clock);
#line 33
  }
  {
#line 34
    auto& sem_ = s.ready[0];
#line 34
    const int64_t amount_ = int32_t(2);
#line 34
    L.scheduler.wait_until(device, [&] { return L.scheduler.load(sem_.value) >= amount_; }, {"sem_wait on `ready` (value " + std::to_string(L.scheduler.load(sem_.value)) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 34, 5, 1070, 1089}, s.flat});
#line 34
    L.scheduler.add(device, sem_.value, -amount_);
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
  dma0->dst_shadow = dma0->dst_device == device ? &L.shadows[static_cast<size_t>(dma0->dst_device) * 3 + 1] : nullptr;
#line 38
  dma0->dst_sem = &L.state(dma0->dst_device, s.flat).recv_sem[0];
#line 38
  dma0->has_src_sem = true;
#line 38
  kdt_rt::claim_dma(dma0, s.clock);
#line 38
  if (dma0->dst_device == device) {
#line 38
    if (options.eager_dma) ring_exchange_run_dma(L, *dma0);
#line 38
    L.state(dma0->dst_device, s.flat).recv_sem[0].in_flight.push_back(dma0);
#line 38
  } else {
#line 38
    ring_exchange_run_dma(L, *dma0);
#line 38
    const int64_t sem_offset_ = reinterpret_cast<const char*>(&L.state(dma0->dst_device, s.flat).recv_sem[0]) - reinterpret_cast<const char*>(&L.state(dma0->dst_device, s.flat));
#line 38
    L.scheduler.arrive(dma0->dst_device, kdt_rt::mpi_arrival(*dma0, sem_offset_));
#line 38
  }
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
    const int target_ = kdt_rt::checked_device(left, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 45, 33, 1671, 1675});
#line 45
    auto& sem_ = L.state(target_, s.flat).acked[0];
#line 45
    L.scheduler.add(target_, sem_.value, int32_t(1));
#line 45
    if (target_ == device) kdt_rt::release(sem_, s.clock);
#line 45
  }
  {
#line 46
    auto& sem_ = s.acked[0];
#line 46
    const int64_t amount_ = int32_t(1);
#line 46
    L.scheduler.wait_until(device, [&] { return L.scheduler.load(sem_.value) >= amount_; }, {"sem_wait on `acked` (value " + std::to_string(L.scheduler.load(sem_.value)) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 46, 5, 1682, 1698}, s.flat});
#line 46
    L.scheduler.add(device, sem_.value, -amount_);
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
    if (L.scheduler.load(s.ready[k_].value) != 0) {
#line 49
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `ready` is " + std::to_string(L.scheduler.load(s.ready[k_].value)) + " when the program ends; it must be back at 0");
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
    if (L.scheduler.load(s.acked[k_].value) != 0) {
#line 49
      kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `acked` is " + std::to_string(L.scheduler.load(s.acked[k_].value)) + " when the program ends; it must be back at 0");
#line 49
    }
#line 49
  }
#line 49
}
#line 5995 "<stdout>"

// A remote DMA that reached this rank (kdt_mpi.h): on its destination semaphore's list, landed.
[[maybe_unused]] static void ring_exchange_arrival(ring_exchange_launch& L, const kdt_rt::MpiArrival& a) {
  const int device = L.scheduler.rank();
  ring_exchange_program_state& s = L.state(device, a.program);
  auto d = std::make_shared<kdt_rt::DmaRecord>();
  d->site = a.site;
  d->bytes = a.bytes;
  d->landed = true;
  d->src_device = a.src_device;
  d->dst_device = device;
  d->program = a.program;
  std::memcpy(d->starts, a.starts, sizeof d->starts);
  d->add = a.add != 0;
  d->dst_box = a.dst_box;
  d->has_src_sem = true;  // the sender retires the source side
  auto& sem_ = *reinterpret_cast<kdt_rt::DmaSemaphore*>(reinterpret_cast<char*>(&s) + a.sem_offset);
  d->dst_sem = &sem_;
  switch (a.site) {
    case 0:
      d->loc = kdt_rt::SourceLoc{"samples/ring_exchange.kd", 38, 5, 1219, 1333};
      d->dst_shadow = &L.shadows[static_cast<size_t>(device) * 3 + 1];
    break;
    default: break;
  }
  if (d->dst_shadow) kdt_rt::claim_arrival(d);
  sem_.in_flight.push_back(d);
}

// Semaphores of every program when the launch ends (remote DMAs and signals may arrive after a program ended).
[[maybe_unused]] static void ring_exchange_launch_end_checks(ring_exchange_launch& L) {
  const int device = L.scheduler.rank();
  for (int64_t flat_ = 0; flat_ < 4; ++flat_) {
    ring_exchange_program_state& s = L.state(device, flat_);
    const std::string when_ = "the launch ends (device " + std::to_string(device) + ", program " + std::to_string(s.flat) + ")";
    for (int64_t k_ = 0; k_ < 1; ++k_) {
      if (L.scheduler.load(s.ready[k_].value) != 0) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `ready` is " + std::to_string(L.scheduler.load(s.ready[k_].value)) + " when " + when_ + "; it must be back at 0");
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
      if (L.scheduler.load(s.acked[k_].value) != 0) {
        kdt_rt::fail(kdt_rt::Code::SemaphoreLeak, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 13, 1, 527, 1788}, "semaphore `acked` is " + std::to_string(L.scheduler.load(s.acked[k_].value)) + " when " + when_ + "; it must be back at 0");
      }
    }
  }
}

// Runs kernel `ring_exchange` over its grid [4] on 4 MPI ranks, this rank as its device (one pointer per device for each ref).
// Returns 0, or 1 when a run-time check failed (described in *error).
inline int ring_exchange(const float* const* x, float* const* recv, float* const* mixed, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  ring_exchange_launch L;
  L.options = options;
  if (std::string why = L.scheduler.size_problem(); !why.empty()) {
    if (error) *error = kdt_rt::RunError{kdt_rt::Code::LimitExceeded, why, {"", 0, 0, 0, 0}, {}};
    return 1;
  }
  const int rank = L.scheduler.rank();
  // The window: the ref parameters, then the states of the 4 programs.
  char* window = L.scheduler.allocate(98304 + sizeof(ring_exchange_program_state) * 4);
  std::memcpy(window + 0, x[rank], 32768);
  L.states = window + 98304;
  for (int64_t flat = 0; flat < 4; ++flat) {
    new (&L.state(rank, flat)) ring_exchange_program_state();
    ring_exchange_launch::init(L.state(rank, flat), rank, flat);
  }
  const ring_exchange_params local{reinterpret_cast<float*>(window + 0), reinterpret_cast<float*>(window + 32768), reinterpret_cast<float*>(window + 65536)};
  for (int device = 0; device < 4; ++device) {
    L.params.push_back(local);
    L.shadows.emplace_back();
    L.shadows.back().init("x", {128, 64}, false, false);
    L.shadows.emplace_back();
    L.shadows.back().init("recv", {128, 64}, true, true);
    L.shadows.emplace_back();
    L.shadows.back().init("mixed", {128, 64}, true, true);
  }
  L.scheduler.on_arrival = [&L](const kdt_rt::MpiArrival& a) { ring_exchange_arrival(L, a); };
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
    ok = L.scheduler.agree(ok);  // every rank's checks passed
  }
  if (ok) {
    std::memcpy(recv[rank], L.params[0].recv, 32768);
    L.scheduler.gather(reinterpret_cast<void* const*>(recv), 32768);
    std::memcpy(mixed[rank], L.params[0].mixed, 32768);
    L.scheduler.gather(reinterpret_cast<void* const*>(mixed), 32768);
  }
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

}  // namespace kdt_kernels

// --harness: reads every in/inout parameter from a .npy file and every scalar from
// --input NAME=VALUE (or the seeded generator, with --random NAME or --random-all),
// runs the kernel and writes every out/inout parameter to OUTPUT_DIR/NAME.npy (device-major: [devices, ...]).
int main(int argc, char** argv) {
  setenv("OMPI_MCA_osc", "sm,pt2pt", 0);
  kdt_rt::MpiSession mpi(argc, argv);
  kdt_rt::HarnessArgs args;
  if (!kdt_rt::parse_harness_args(argc, argv, args)) return 2;
  if (!kdt_rt::check_harness_params(args, {{"x", kdt_rt::HarnessParamKind::In}, {"recv", kdt_rt::HarnessParamKind::Out}, {"mixed", kdt_rt::HarnessParamKind::Out}})) return 2;
  if (mpi.size() != 4) {
    if (mpi.rank() == 0) kdt_rt::detail::harness_error("kernel ring_exchange runs on 4 devices, one per MPI rank, but mpirun started " + std::to_string(mpi.size()) + " (mpirun -n 4)");
    return 2;
  }
  kdt_rt::HarnessBuffer<float> x;
  if (!kdt_rt::harness_input(args, "x", "f32", {4u, 128u, 64u}, x, 0)) return 2;
  std::vector<float*> x_devices_;
  for (size_t d = 0; d < 4; ++d) x_devices_.push_back(x.data() + d * 8192);
  kdt_rt::HarnessBuffer<float> recv;
  kdt_rt::harness_out_buffer({4u, 128u, 64u}, recv);
  std::vector<float*> recv_devices_;
  for (size_t d = 0; d < 4; ++d) recv_devices_.push_back(recv.data() + d * 8192);
  kdt_rt::HarnessBuffer<float> mixed;
  kdt_rt::harness_out_buffer({4u, 128u, 64u}, mixed);
  std::vector<float*> mixed_devices_;
  for (size_t d = 0; d < 4; ++d) mixed_devices_.push_back(mixed.data() + d * 8192);
  kdt_rt::RunError error;
  auto start = std::chrono::steady_clock::now();
  if (kdt_kernels::ring_exchange(x_devices_.data(), recv_devices_.data(), mixed_devices_.data(), args.run, &error) != 0) {
    const bool mine = !error.message.empty();
    const int reporter = mpi.lowest(mine);
    const bool merged = kdt_rt::merge_deadlock_reports(error, reporter);  // every blocked rank's wait, in one report
    if (mine && !merged) kdt_rt::report_failure(error, mpi.rank() == reporter ? args.diag_json.c_str() : nullptr);
    return 1;
  }
  if (mpi.rank() != 0) return 0;  // rank 0 holds every device's outputs
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("kernel ring_exchange: grid [4], 4 devices\ntime: %.3f ms\n", ms);
  kdt_rt::print_generated(args);
  if (!kdt_rt::harness_output(args, "recv", "f32", {4u, 128u, 64u}, recv)) {
    kdt_rt::harness_discard_outputs(args);
    return 2;
  }
  if (!kdt_rt::harness_output(args, "mixed", "f32", {4u, 128u, 64u}, mixed)) {
    kdt_rt::harness_discard_outputs(args);
    return 2;
  }
  if (!kdt_rt::harness_commit_outputs(args)) return 2;
  return 0;
}
