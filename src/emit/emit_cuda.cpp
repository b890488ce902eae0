// The CUDA back end (issue 6). Not implemented yet: says so.
#include "kdt/emit/emit_cuda.h"

namespace kdt {

bool emit_cuda(const ir::Module&, const SourceManager&, const CudaEmitOptions&, DiagnosticEngine&, std::string&) {
  return false;
}

bool compile_to_ptx(const std::string&, const std::string&, std::string&, std::string& error) {
  error = "--emit=ptx is not available in this version of kdt";
  return false;
}

}  // namespace kdt
