// --emit=ptx: the PTX of the CUDA output, through NVRTC (loaded at run time)
// or nvcc. It sits in the driver beside `kdt run`'s C++ compiler call: both
// run a toolchain on emitted text; neither is a stage of the pipeline.
#pragma once

#include <string>

namespace kdt {

enum class PtxStatus {
  Ok,
  Failed,            // NVRTC or nvcc refused the CUDA (`error` has its log)
  ToolchainMissing,  // neither was found (`error` says where kdt looked)
};

// nvcc's path: under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, then on
// PATH; "" when there is none.
std::string find_nvcc();

// Compiles CUDA C++ to PTX for `arch`; anything but Ok sets `error`.
PtxStatus compile_to_ptx(const std::string& cuda, const std::string& arch, std::string& ptx, std::string& error);

}  // namespace kdt
