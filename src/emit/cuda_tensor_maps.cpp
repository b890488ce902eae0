// The CUDA back end: multi-row DMAs through tensor maps (issue 19, item 9;
// docs/cuda.md, "DMAs and semaphores"). Which DMAs take them, the thread-0
// issue in the kernel, and the maps the launcher encodes.
#include <algorithm>

#include "cuda_kernel_emitter.h"

namespace kdt::cuda {

namespace {

// The driver's name of the element type: what a tensor copy moves (any type
// of the same size would do) and what its reduce-add adds. An f32 add map
// is FLOAT32_FTZ: every other GPU route of an f32 add into @global flushes
// subnormal inputs and results (docs/cuda.md), and the tensor reduce must
// not be the one route that keeps them.
const char* tensor_map_dtype(DType t, bool add) {
  switch (dtype_bytes(t)) {
    case 1: return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
    case 2: return t == DType::F16 ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"
                   : t == DType::BF16 ? "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"
                                      : "CU_TENSOR_MAP_DATA_TYPE_UINT16";
    case 4: return t == DType::F32 ? (add ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ" : "CU_TENSOR_MAP_DATA_TYPE_FLOAT32")
                   : t == DType::I32 ? "CU_TENSOR_MAP_DATA_TYPE_INT32"
                                     : "CU_TENSOR_MAP_DATA_TYPE_UINT32";
    default: return t == DType::F64 ? "CU_TENSOR_MAP_DATA_TYPE_FLOAT64"
                    : t == DType::I64 ? "CU_TENSOR_MAP_DATA_TYPE_INT64"
                                      : "CU_TENSOR_MAP_DATA_TYPE_UINT64";
  }
}

std::string brace_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ", ") + i;
  return "{" + out + "}";
}

}  // namespace

// A DMA takes a map when it takes the bulk route (bulk_route: the same test
// dma_start makes) and its copy would be several rows of one global
// parameter's box and one contiguous shared region, and the box fits the
// driver's limits (every box dimension at most 256, the innermost a
// multiple of 16 bytes, the ref's strides multiples of 16 bytes). Reduce-add
// only for f32, i32 and u32, whose tensor reduce is documented as the bulk
// reduce's. Whether the bulk path runs at all is still decided per DMA at
// run time; the map is used inside it.
void KernelEmitter::plan_tensor_maps() {
  if (!use_bulk() || multi_device()) return;
  ir::for_each_stmt(k_.body, [&](const ir::Stmt& s) {
    if (s.kind != ir::StmtKind::DmaStart || s.device) return;
    const DmaRoute route = bulk_route(s);
    if (route == DmaRoute::Coop) return;
    const ir::Ref& sr = k_.refs[s.src->ref];
    if (route == DmaRoute::S2GAdd && sr.dtype != DType::F32 && sr.dtype != DType::I32 && sr.dtype != DType::U32) return;
    const ir::View& global = route == DmaRoute::G2S ? *s.src : *s.dst;
    const ir::View& shared = route == DmaRoute::G2S ? *s.dst : *s.src;
    const ir::Ref& gr = k_.refs[global.ref];
    if (!gr.is_param || gr.shape.size() < 2 || gr.shape.size() > 5) return;
    if (shared.contiguous_tail(k_.refs[shared.ref].shape) != shared.shape().size()) return;
    int64_t row_bytes = 0;
    const size_t tail = dma_tail(s, &row_bytes);
    if (tail >= s.src->shape().size()) return;  // one row: one bulk copy already
    const int64_t esize = elem_size(gr.dtype);
    const std::vector<int64_t> strides = row_major_strides(gr.shape);
    TensorMapUse use{global.ref, {}, s.add};
    for (size_t d = 0; d < gr.shape.size(); ++d) {
      const int64_t box = global.dims[d].dropped ? 1 : global.dims[d].size;
      if (box > 256 || gr.shape[d] >= (int64_t{1} << 31)) return;  // coordinates are s32
      if (d + 1 < gr.shape.size() && ((strides[d] * esize) % 16 != 0 || strides[d] * esize >= (int64_t{1} << 40))) return;
      use.box.push_back(box);
    }
    if ((use.box.back() * esize) % 16 != 0) return;
    auto found = std::find(tensor_maps_.begin(), tensor_maps_.end(), use);
    if (found == tensor_maps_.end()) {
      if (tensor_maps_.size() == kMaxTensorMaps) return;
      tensor_maps_.push_back(use);
      found = tensor_maps_.end() - 1;
    }
    tensor_dma_[&s] = static_cast<int>(found - tensor_maps_.begin());
  });
}

void KernelEmitter::tensor_dma_issue(const ir::Stmt& s, int map, const std::vector<std::string>& global_starts,
                                     const std::string& smem, const std::string& bar) {
  const bool g2s = k_.refs[s.src->ref].space == MemSpace::Global;
  // Coordinates innermost first, as the map lists the dimensions.
  std::vector<std::string> coords;
  for (size_t d = global_starts.size(); d-- > 0;) {
    const std::string& c = global_starts[d];
    coords.push_back(c.find_first_not_of("0123456789") == std::string::npos ? c : "static_cast<int>(" + c + ")");
  }
  while (coords.size() < 5) coords.push_back("0");
  const std::string rank = std::to_string(global_starts.size());
  const std::string m = "&kdt_tensor_maps.map[" + std::to_string(map) + "]";
  w_.line("const int kdt_box[5] = " + brace_list(coords) + ";");
  if (g2s) w_.line("kdt_cu::tensor_g2s<" + rank + ">(" + smem + ", " + m + ", kdt_box, " + bar + ");");
  else w_.line("kdt_cu::tensor_s2g<" + rank + ", " + (s.add ? "true" : "false") + ">(" + m + ", kdt_box, " + smem + ");");
}

void KernelEmitter::emit_tensor_maps_type() {
  out_.line("// Tensor maps of `" + names_.kernel + "` (one per global ref and box shape), encoded by its launcher;");
  out_.line("// ok == 0: a map could not be encoded and every DMA copies row by row.");
  out_.open("struct " + names_.kernel + kTensorMapsSuffix + " {");
  out_.line("kdt_cu::TensorMap map[" + std::to_string(tensor_maps_.size()) + "];");
  out_.line("int ok;");
  out_.close("};");
}

void KernelEmitter::emit_tensor_maps_encode() {
  out_.line(own(kTensorMapsSuffix) + " kdt_tensor_maps{};");
  out_.line("kdt_tensor_maps.ok = 1;");
  for (size_t i = 0; i < tensor_maps_.size(); ++i) {
    const TensorMapUse& use = tensor_maps_[i];
    const ir::Ref& r = k_.refs[use.ref];
    const std::vector<int64_t> strides = row_major_strides(r.shape);
    std::vector<std::string> dims, bytes, box;
    for (size_t d = r.shape.size(); d-- > 0;) {
      dims.push_back(std::to_string(r.shape[d]) + "u");
      box.push_back(std::to_string(use.box[d]) + "u");
      if (d + 1 < r.shape.size()) bytes.push_back(std::to_string(strides[d] * elem_size(r.dtype)) + "u");
    }
    out_.open("{  // `" + names_.refs[use.ref] + "`, boxes of " + shape_string(use.box));
    out_.line("const cuuint64_t dims[] = " + brace_list(dims) + ", strides[] = " + brace_list(bytes) + ";");
    out_.line("const cuuint32_t box[] = " + brace_list(box) + ";");
    out_.line("kdt_tensor_maps.ok &= kdt_cu::encode_tensor_map(&kdt_tensor_maps.map[" + std::to_string(i) + "], " +
              names_.refs[use.ref] + ", " + tensor_map_dtype(r.dtype, use.add) + ", " + std::to_string(r.shape.size()) +
              ", dims, strides, box, \"" + k_.kd_name + "\", \"" + k_.refs[use.ref].kd_name + "\");");
    out_.close();
  }
}

}  // namespace kdt::cuda
