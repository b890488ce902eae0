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
  int64_t program[1];  // program ids
  int64_t flat = 0;  // flattened program index
};

struct ring_exchange_launch {
  std::vector<ring_exchange_params> params;  // one set per device
  kdt_rt::RunOptions options;
  kdt_rt::DeviceScheduler scheduler{4};
  // By device * programs + flat index; ordered, so that the launch-end checks are deterministic.
  std::map<int64_t, std::unique_ptr<ring_exchange_program_state>> states;
  std::mutex states_mutex;  // free-running devices look states up at the same time
  ring_exchange_program_state& state(int device, int64_t flat) {
    std::lock_guard<std::mutex> lock(states_mutex);
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
  [[maybe_unused]] const int32_t right = kdt_rt::int_rem<int32_t>(kdt_rt::op_add(me, int32_t(1)), n);
  [[maybe_unused]] const int32_t left = kdt_rt::int_rem<int32_t>(kdt_rt::op_sub(kdt_rt::op_add(me, n), int32_t(1)), n);
#line 32
  {
#line 32
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 32
    const int target_ = kdt_rt::checked_device(left, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 32, 33, 1019, 1023});
#line 32
    L.state(target_, s.flat).ready[0].value += int32_t(1);
#line 32
    L.scheduler.raised(target_);
#line 32
  }
  {
#line 33
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 33
    const int target_ = kdt_rt::checked_device(right, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 33, 33, 1058, 1063});
#line 33
    L.state(target_, s.flat).ready[0].value += int32_t(1);
#line 33
    L.scheduler.raised(target_);
#line 33
  }
  {
#line 34
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 34
    auto& sem_ = s.ready[0];
#line 34
    const int64_t amount_ = int32_t(2);
#line 34
    L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {"sem_wait on `ready` (value " + std::to_string(sem_.value) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 34, 5, 1070, 1089}, s.flat}, comm_);
#line 34
    sem_.value -= amount_;
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
  dma0->starts[0] = static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32)));
#line 38
  dma0->starts[1] = static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32)));
#line 38
  {
#line 38
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 38
    if (options.eager_dma) ring_exchange_run_dma(L, *dma0);
#line 38
    kdt_rt::enqueue(L.scheduler, L.state(dma0->dst_device, s.flat).recv_sem[0], dma0);
#line 38
    kdt_rt::enqueue(L.scheduler, s.send_sem[0], dma0);
#line 38
    L.scheduler.raised(dma0->dst_device);
#line 38
  }
#line 40
  {
#line 40
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 40
    auto& sem_ = s.send_sem[0];
#line 40
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `send_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 40, 5, 1338, 1379}, s.flat}, comm_);
#line 40
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 8192, options);
#line 40
    if (!d_->landed) ring_exchange_run_dma(L, *d_);
#line 40
  }
  {
#line 41
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 41
    auto& sem_ = s.recv_sem[0];
#line 41
    L.scheduler.wait_until(device, [&] { return !sem_.in_flight.empty(); }, {"dma_wait on `recv_sem` (no DMA in flight)", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 41, 5, 1417, 1461}, s.flat}, comm_);
#line 41
    std::shared_ptr<kdt_rt::DmaRecord> d_ = kdt_rt::take_for_wait(sem_, 8192, options);
#line 41
    if (!d_->landed) ring_exchange_run_dma(L, *d_);
#line 41
  }
#line 45
  {
#line 45
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 45
    const int target_ = kdt_rt::checked_device(left, 4, kdt_rt::SourceLoc{"samples/ring_exchange.kd", 45, 33, 1671, 1675});
#line 45
    L.state(target_, s.flat).acked[0].value += int32_t(1);
#line 45
    L.scheduler.raised(target_);
#line 45
  }
  {
#line 46
    kdt_rt::DeviceScheduler::Comm comm_(L.scheduler);
#line 46
    auto& sem_ = s.acked[0];
#line 46
    const int64_t amount_ = int32_t(1);
#line 46
    L.scheduler.wait_until(device, [&] { return sem_.value >= amount_; }, {"sem_wait on `acked` (value " + std::to_string(sem_.value) + ", needs " + std::to_string(amount_) + ")", kdt_rt::SourceLoc{"samples/ring_exchange.kd", 46, 5, 1682, 1698}, s.flat}, comm_);
#line 46
    sem_.value -= amount_;
#line 46
  }
#line 48
  const int64_t start1 = static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32)));
#line 48
  const int64_t start2 = static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32)));
#line 48
  const int64_t start3 = static_cast<int64_t>(kdt_rt::op_mul(i, int32_t(32)));
#line 48
  {
#line 48
    int64_t f4 = 0;
#line 48
    (void)f4;
#line 48
    for (int64_t i4_0 = 0; i4_0 < 32; ++i4_0) {
#line 48
      for (int64_t i4_1 = 0; i4_1 < 64; ++i4_1) {
#line 48
        p.mixed[(start3 + i4_0) * 64 + (i4_1)] = kdt_rt::op_mul(0x1p-1f, kdt_rt::op_add(p.x[(start1 + i4_0) * 64 + (i4_1)], p.recv[(start2 + i4_0) * 64 + (i4_1)]));
#line 48
        ++f4;
#line 48
      }
#line 48
    }
#line 48
  }
}
#line 5310 "<stdout>"

// Runs kernel `ring_exchange` over its grid [4] on 4 simulated devices (one pointer per device for each ref), options.jobs of them at once.
// Returns 0, or 1 when a run-time check failed (described in *error).
static int ring_exchange_run(const float* const* x, float* const* recv, float* const* mixed, const kdt_rt::RunOptions& options, kdt_rt::RunError* error) {
  ring_exchange_launch L;
  L.options = options;
  for (int device = 0; device < 4; ++device) {
    L.params.push_back(ring_exchange_params{x[device], recv[device], mixed[device]});
  }
  const std::vector<int64_t> order = kdt_rt::program_order(4, options);
  kdt_rt::RunError failure;
  if (kdt_rt::runs_free(options)) L.scheduler.free_running(options.jobs, kdt_rt::available_cores());
  bool ok = L.scheduler.run([&](int device) {
    for (int64_t flat : order) {
      ring_exchange_program(L, device, L.state(device, flat));
    }
  }, failure);
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

// Runs kernel `ring_exchange`: on options.jobs threads, and when that fails, again on one thread
// from the same inout parameters, so that a failure is reported as on one thread.
inline int ring_exchange(const float* const* x, float* const* recv, float* const* mixed, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  if (!kdt_rt::runs_free(options)) return ring_exchange_run(x, recv, mixed, options, error);
  kdt_rt::ParameterSnapshot inouts;
  if (ring_exchange_run(x, recv, mixed, options, nullptr) == 0) return 0;
  inouts.restore();
  kdt_rt::RunOptions one_thread = options;
  one_thread.jobs = 1;
  return ring_exchange_run(x, recv, mixed, one_thread, error);
}

}  // namespace kdt_kernels
