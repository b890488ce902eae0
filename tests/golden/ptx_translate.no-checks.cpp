namespace kdt_kernels {

// Parameters of kernel `ptx_translate`: one pointer per ref (row-major), scalars by value.
struct ptx_translate_params {
  const float* x;  // f32[4096] @global, in
  const float* y;  // f32[4096] @global, in
  const int32_t* k;  // i32[4096] @global, in
  float cap;
  float* fsum;  // f32[4096] @global
  float* mul_add;  // f32[4096] @global
  float* clamped;  // f32[4096] @global
  int32_t* affine;  // i32[4096] @global
  int32_t* kmax;  // i32[4096] @global
  uint32_t* shifted;  // u32[4096] @global
  float* mixed;  // f32[4096] @global
};

// Scratch buffers and semaphores of one program (one instance per program).
struct ptx_translate_program_state {
  int64_t program[1];  // program ids
  int64_t flat = 0;  // flattened program index
  int64_t position = 0;  // in the program order (add=true DMAs land in its order)
};

struct ptx_translate_launch {
  std::vector<ptx_translate_params> params;  // one set per device
  kdt_rt::RunOptions options;
  kdt_rt::DeviceScheduler scheduler{1};
  kdt_rt::ProgramPool pool;  // -j (kdt_parallel.h)
  std::vector<std::unique_ptr<ptx_translate_program_state>> worker_states;  // one per worker, sized before the launch
  ptx_translate_program_state& state(int worker, int device, int64_t flat) {
    auto& slot = worker_states[static_cast<size_t>(worker)];
    if (!slot) {
      slot = std::make_unique<ptx_translate_program_state>();
    } else {
      kdt_rt::renew(*slot);
    }
    init(*slot, device, flat);
    return *slot;
  }
  static void init(ptx_translate_program_state& s, int device, int64_t flat) {
    (void)device;
    s.flat = flat;
    s.program[0] = flat / 1 % 8;
  }
};

[[maybe_unused]] static void ptx_translate_run_dma(ptx_translate_launch& L, kdt_rt::DmaRecord& d) {
  (void)L;
  switch (d.site) {
    default: break;
  }
  d.landed = true;
}

// One program of `ptx_translate`.
static void ptx_translate_program(ptx_translate_launch& L, int device, ptx_translate_program_state& s) {
  const ptx_translate_params& p = L.params[static_cast<size_t>(device)];
  const kdt_rt::RunOptions& options = L.options;
  (void)p, (void)options;
#line 26 "samples/ptx_translate.kd"
  [[maybe_unused]] const int32_t kd_s = kdt_rt::op_mul(static_cast<int32_t>(s.program[0]), int32_t(512));
  alignas(64) float xv[512];
#line 27
  const int64_t start0 = static_cast<int64_t>(kd_s);
#line 27
  {
#line 27
    int64_t f1 = 0;
#line 27
    (void)f1;
#line 27
    for (int64_t i1_0 = 0; i1_0 < 512; ++i1_0) {
#line 27
      xv[f1] = p.x[(start0 + i1_0)];
#line 27
      ++f1;
#line 27
    }
#line 27
  }
  alignas(64) float yv[512];
#line 28
  const int64_t start2 = static_cast<int64_t>(kd_s);
#line 28
  {
#line 28
    int64_t f3 = 0;
#line 28
    (void)f3;
#line 28
    for (int64_t i3_0 = 0; i3_0 < 512; ++i3_0) {
#line 28
      yv[f3] = p.y[(start2 + i3_0)];
#line 28
      ++f3;
#line 28
    }
#line 28
  }
  alignas(64) int32_t kv[512];
#line 29
  const int64_t start4 = static_cast<int64_t>(kd_s);
#line 29
  {
#line 29
    int64_t f5 = 0;
#line 29
    (void)f5;
#line 29
    for (int64_t i5_0 = 0; i5_0 < 512; ++i5_0) {
#line 29
      kv[f5] = p.k[(start4 + i5_0)];
#line 29
      ++f5;
#line 29
    }
#line 29
  }
  alignas(64) int32_t idx[512];
#line 30
  {
#line 30
    int64_t f6 = 0;
#line 30
    (void)f6;
#line 30
    for (int64_t i6_0 = 0; i6_0 < 512; ++i6_0) {
#line 30
      idx[f6] = kdt_rt::op_add(kdt_rt::convert<int32_t>(i6_0), kd_s);
#line 30
      ++f6;
#line 30
    }
#line 30
  }
#line 32
  alignas(64) float asm0_o[512];
#line 32
  {
#line 32
    int64_t f7 = 0;
#line 32
    (void)f7;
#line 32
    for (int64_t i7_0 = 0; i7_0 < 512; ++i7_0) {
#line 32
      const float kdtptx0_in_p = xv[f7];
#line 32
      const float kdtptx0_in_q = yv[f7];
#line 32
      float kdtptx0_out_o{};
#line 32
      [[maybe_unused]] const uint32_t kdtptx0_p_0 = kdt_rt::ptx::in_f32(kdtptx0_in_p);
#line 32
      [[maybe_unused]] const uint32_t kdtptx0_q_1 = kdt_rt::ptx::in_f32(kdtptx0_in_q);
#line 32
      [[maybe_unused]] const uint32_t kdtptx0_o_2 = kdt_rt::ptx::add_rn_f32(kdtptx0_p_0, kdtptx0_q_1);
#line 32
      kdtptx0_out_o = kdt_rt::ptx::out_f32(kdtptx0_o_2);
#line 32
      asm0_o[f7] = kdtptx0_out_o;
#line 32
      ++f7;
#line 32
    }
#line 32
  }
#line 32
  const int64_t start8 = static_cast<int64_t>(kd_s);
#line 32
  {
#line 32
    int64_t f9 = 0;
#line 32
    (void)f9;
#line 32
    for (int64_t i9_0 = 0; i9_0 < 512; ++i9_0) {
#line 32
      p.fsum[(start8 + i9_0)] = asm0_o[f9];
#line 32
      ++f9;
#line 32
    }
#line 32
  }
#line 37
  alignas(64) float asm1_o[512];
#line 37
  {
#line 37
    int64_t f10 = 0;
#line 37
    (void)f10;
#line 37
    for (int64_t i10_0 = 0; i10_0 < 512; ++i10_0) {
#line 37
      const float kdtptx1_in_p = xv[f10];
#line 37
      const float kdtptx1_in_q = yv[f10];
#line 37
      float kdtptx1_out_o{};
#line 37
      [[maybe_unused]] const uint32_t kdtptx1_p_0 = kdt_rt::ptx::in_f32(kdtptx1_in_p);
#line 37
      [[maybe_unused]] const uint32_t kdtptx1_q_1 = kdt_rt::ptx::in_f32(kdtptx1_in_q);
#line 37
      [[maybe_unused]] const uint32_t kdtptx1_t_2 = kdt_rt::ptx::mul_rn_f32(kdtptx1_p_0, kdtptx1_q_1);
#line 37
      [[maybe_unused]] const uint32_t kdtptx1_o_3 = kdt_rt::ptx::add_rn_f32(kdtptx1_t_2, uint32_t(1065353216));
#line 37
      kdtptx1_out_o = kdt_rt::ptx::out_f32(kdtptx1_o_3);
#line 37
      asm1_o[f10] = kdtptx1_out_o;
#line 37
      ++f10;
#line 37
    }
#line 37
  }
#line 37
  const int64_t start11 = static_cast<int64_t>(kd_s);
#line 37
  {
#line 37
    int64_t f12 = 0;
#line 37
    (void)f12;
#line 37
    for (int64_t i12_0 = 0; i12_0 < 512; ++i12_0) {
#line 37
      p.mul_add[(start11 + i12_0)] = asm1_o[f12];
#line 37
      ++f12;
#line 37
    }
#line 37
  }
#line 46
  alignas(64) float asm2_o[512];
#line 46
  {
#line 46
    int64_t f13 = 0;
#line 46
    (void)f13;
#line 46
    for (int64_t i13_0 = 0; i13_0 < 512; ++i13_0) {
#line 46
      const float kdtptx2_in_p = xv[f13];
#line 46
      const float kdtptx2_in_c = p.cap;
#line 46
      float kdtptx2_out_o{};
#line 46
      [[maybe_unused]] const uint32_t kdtptx2_p_0 = kdt_rt::ptx::in_f32(kdtptx2_in_p);
#line 46
      [[maybe_unused]] const uint32_t kdtptx2_c_1 = kdt_rt::ptx::in_f32(kdtptx2_in_c);
#line 46
      [[maybe_unused]] const uint32_t kdtptx2_o_2 = kdt_rt::ptx::min_f32(kdtptx2_p_0, kdtptx2_c_1);
#line 46
      kdtptx2_out_o = kdt_rt::ptx::out_f32(kdtptx2_o_2);
#line 46
      asm2_o[f13] = kdtptx2_out_o;
#line 46
      ++f13;
#line 46
    }
#line 46
  }
#line 46
  const int64_t start14 = static_cast<int64_t>(kd_s);
#line 46
  {
#line 46
    int64_t f15 = 0;
#line 46
    (void)f15;
#line 46
    for (int64_t i15_0 = 0; i15_0 < 512; ++i15_0) {
#line 46
      p.clamped[(start14 + i15_0)] = asm2_o[f15];
#line 46
      ++f15;
#line 46
    }
#line 46
  }
#line 50
  alignas(64) int32_t asm3_o[512];
#line 50
  {
#line 50
    int64_t f16 = 0;
#line 50
    (void)f16;
#line 50
    for (int64_t i16_0 = 0; i16_0 < 512; ++i16_0) {
#line 50
      const int32_t kdtptx3_in_p = kv[f16];
#line 50
      const int32_t kdtptx3_in_i = idx[f16];
#line 50
      int32_t kdtptx3_out_o{};
#line 50
      [[maybe_unused]] const uint32_t kdtptx3_p_0 = kdt_rt::ptx::in_i32(kdtptx3_in_p);
#line 50
      [[maybe_unused]] const uint32_t kdtptx3_i_1 = kdt_rt::ptx::in_i32(kdtptx3_in_i);
#line 50
      [[maybe_unused]] const uint32_t kdtptx3_o_2 = kdt_rt::ptx::mad_lo_b32(kdtptx3_p_0, uint32_t(3), kdtptx3_i_1);
#line 50
      kdtptx3_out_o = kdt_rt::ptx::out_i32(kdtptx3_o_2);
#line 50
      asm3_o[f16] = kdtptx3_out_o;
#line 50
      ++f16;
#line 50
    }
#line 50
  }
#line 50
  const int64_t start17 = static_cast<int64_t>(kd_s);
#line 50
  {
#line 50
    int64_t f18 = 0;
#line 50
    (void)f18;
#line 50
    for (int64_t i18_0 = 0; i18_0 < 512; ++i18_0) {
#line 50
      p.affine[(start17 + i18_0)] = asm3_o[f18];
#line 50
      ++f18;
#line 50
    }
#line 50
  }
#line 56
  alignas(64) int32_t asm4_o[512];
#line 56
  {
#line 56
    int64_t f19 = 0;
#line 56
    (void)f19;
#line 56
    for (int64_t i19_0 = 0; i19_0 < 512; ++i19_0) {
#line 56
      const int32_t kdtptx4_in_v = kv[f19];
#line 56
      int32_t kdtptx4_out_o{};
#line 56
      [[maybe_unused]] const uint32_t kdtptx4_v_0 = kdt_rt::ptx::in_i32(kdtptx4_in_v);
#line 56
      [[maybe_unused]] const bool kdtptx4_cmp_1 = kdt_rt::ptx::setp_s32(int32_t(4), kdtptx4_v_0, uint32_t(0));
#line 56
      [[maybe_unused]] const bool kdtptx4__p0_2 = kdtptx4_cmp_1;
#line 56
      [[maybe_unused]] const uint32_t kdtptx4_o_3 = kdt_rt::ptx::selp_b32(kdtptx4_v_0, uint32_t(0), kdtptx4__p0_2);
#line 56
      kdtptx4_out_o = kdt_rt::ptx::out_i32(kdtptx4_o_3);
#line 56
      asm4_o[f19] = kdtptx4_out_o;
#line 56
      ++f19;
#line 56
    }
#line 56
  }
#line 56
  const int64_t start20 = static_cast<int64_t>(kd_s);
#line 56
  {
#line 56
    int64_t f21 = 0;
#line 56
    (void)f21;
#line 56
    for (int64_t i21_0 = 0; i21_0 < 512; ++i21_0) {
#line 56
      p.kmax[(start20 + i21_0)] = asm4_o[f21];
#line 56
      ++f21;
#line 56
    }
#line 56
  }
#line 65
  alignas(64) uint32_t asm5_o[512];
#line 65
  {
#line 65
    int64_t f22 = 0;
#line 65
    (void)f22;
#line 65
    for (int64_t i22_0 = 0; i22_0 < 512; ++i22_0) {
#line 65
      const uint32_t kdtptx5_in_v = kdt_rt::convert<uint32_t>(kv[f22]);
#line 65
      const uint32_t kdtptx5_in_n = kdt_rt::convert<uint32_t>(kdt_rt::int_rem<int32_t>(idx[f22], int32_t(40)));
#line 65
      uint32_t kdtptx5_out_o{};
#line 65
      [[maybe_unused]] const uint32_t kdtptx5_v_0 = kdt_rt::ptx::in_u32(kdtptx5_in_v);
#line 65
      [[maybe_unused]] const uint32_t kdtptx5_n_1 = kdt_rt::ptx::in_u32(kdtptx5_in_n);
#line 65
      [[maybe_unused]] const uint32_t kdtptx5_o_2 = kdt_rt::ptx::shl_b32(kdtptx5_v_0, kdtptx5_n_1);
#line 65
      kdtptx5_out_o = kdt_rt::ptx::out_u32(kdtptx5_o_2);
#line 65
      asm5_o[f22] = kdtptx5_out_o;
#line 65
      ++f22;
#line 65
    }
#line 65
  }
#line 65
  const int64_t start23 = static_cast<int64_t>(kd_s);
#line 65
  {
#line 65
    int64_t f24 = 0;
#line 65
    (void)f24;
#line 65
    for (int64_t i24_0 = 0; i24_0 < 512; ++i24_0) {
#line 65
      p.shifted[(start23 + i24_0)] = asm5_o[f24];
#line 65
      ++f24;
#line 65
    }
#line 65
  }
#line 69
  alignas(64) float asm6_o[512];
#line 69
  {
#line 69
    int64_t f25 = 0;
#line 69
    (void)f25;
#line 69
    for (int64_t i25_0 = 0; i25_0 < 512; ++i25_0) {
#line 69
      const int32_t kdtptx6_in_v = kv[f25];
#line 69
      float kdtptx6_out_o{};
#line 69
      [[maybe_unused]] const uint32_t kdtptx6_v_0 = kdt_rt::ptx::in_i32(kdtptx6_in_v);
#line 69
      [[maybe_unused]] const uint32_t kdtptx6_rlo_1 = kdt_rt::ptx::and_b32(kdtptx6_v_0, uint32_t(255));
#line 69
      [[maybe_unused]] const uint32_t kdtptx6_rhi_2 = kdt_rt::ptx::or_b32(kdtptx6_v_0, uint32_t(256));
#line 69
      [[maybe_unused]] const uint32_t kdtptx6_t_3 = kdt_rt::ptx::xor_b32(kdtptx6_rlo_1, kdtptx6_rhi_2);
#line 69
      [[maybe_unused]] const uint32_t kdtptx6_o_4 = kdt_rt::ptx::cvt32(int32_t(10), int32_t(4), int32_t(0), false, false, kdtptx6_t_3);
#line 69
      kdtptx6_out_o = kdt_rt::ptx::out_f32(kdtptx6_o_4);
#line 69
      asm6_o[f25] = kdtptx6_out_o;
#line 69
      ++f25;
#line 69
    }
#line 69
  }
#line 69
  const int64_t start26 = static_cast<int64_t>(kd_s);
#line 69
  {
#line 69
    int64_t f27 = 0;
#line 69
    (void)f27;
#line 69
    for (int64_t i27_0 = 0; i27_0 < 512; ++i27_0) {
#line 69
      p.mixed[(start26 + i27_0)] = asm6_o[f27];
#line 69
      ++f27;
#line 69
    }
#line 69
  }
#line 79
}
#line 5582 "<stdout>"

// Runs kernel `ptx_translate` over its grid [8], on options.jobs threads.
// Returns 0, or 1 when a run-time check failed (described in *error).
static int ptx_translate_run(const float* x, const float* y, const int32_t* k, float cap, float* fsum, float* mul_add, float* clamped, int32_t* affine, int32_t* kmax, uint32_t* shifted, float* mixed, const kdt_rt::RunOptions& options, kdt_rt::RunError* error) {
  ptx_translate_launch L;
  L.options = options;
  for (int device = 0; device < 1; ++device) {
    L.params.push_back(ptx_translate_params{x, y, k, cap, fsum, mul_add, clamped, affine, kmax, shifted, mixed});
  }
  const std::vector<int64_t> order = kdt_rt::program_order(8, options);
  kdt_rt::RunError failure;
  L.worker_states.resize(static_cast<size_t>(kdt_rt::workers(options, 1)));
  // The program at `position` of the order on `device`, run by `worker`.
  auto program = [&](int worker, int device, int64_t position) {
    ptx_translate_program_state& s = L.state(worker, device, order[static_cast<size_t>(position)]);
    s.position = position;
    ptx_translate_program(L, device, s);
  };
  bool ok = kdt_rt::run_independent(L.scheduler, L.pool, 1, 8, options, program, failure, kdt_rt::StackNeed{22528, kdt_rt::SourceLoc{"samples/ptx_translate.kd", 27, 5, 1051, 1072}, "xv"});
  if (!ok) {
    if (error) *error = failure;
    return 1;
  }
  return 0;
}

// Runs kernel `ptx_translate`: on options.jobs threads, and when that fails, again on one thread
// from the same inout parameters, so that a failure is reported as on one thread.
inline int ptx_translate(const float* x, const float* y, const int32_t* k, float cap, float* fsum, float* mul_add, float* clamped, int32_t* affine, int32_t* kmax, uint32_t* shifted, float* mixed, const kdt_rt::RunOptions& options = {}, kdt_rt::RunError* error = nullptr) {
  if (!kdt_rt::runs_parallel(options, 8)) return ptx_translate_run(x, y, k, cap, fsum, mul_add, clamped, affine, kmax, shifted, mixed, options, error);
  kdt_rt::ParameterSnapshot inouts;
  if (ptx_translate_run(x, y, k, cap, fsum, mul_add, clamped, affine, kmax, shifted, mixed, options, nullptr) == 0) return 0;
  inouts.restore();
  kdt_rt::RunOptions one_thread = options;
  one_thread.jobs = 1;
  return ptx_translate_run(x, y, k, cap, fsum, mul_add, clamped, affine, kmax, shifted, mixed, one_thread, error);
}

}  // namespace kdt_kernels
