# Writes OUTPUT: a C++ file defining kdt::kRuntimePrelude as the text of the
# runtime headers (kdt_runtime.h, kdt_exec.h, then kdt_ptx.h), so that emitted files are
# self-contained and need no kdt installation.
file(READ ${RUNTIME_H} runtime)
file(READ ${EXEC_H} exec)
file(READ ${PTX_H} ptx)
string(REPLACE "#include \"kdt_runtime.h\"" "" exec "${exec}")
string(REPLACE "#include \"kdt_runtime.h\"" "" ptx "${ptx}")
set(text "${runtime}\n${exec}\n${ptx}")
string(FIND "${text}" ")KDT_PRELUDE\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "the runtime headers contain the raw-string delimiter")
endif()
# Raw string literals are limited in length by some compilers: split in chunks.
string(LENGTH "${text}" length)
set(chunks "")
set(pos 0)
while(pos LESS length)
  string(SUBSTRING "${text}" ${pos} 8000 chunk)
  string(APPEND chunks "R\"KDT_PRELUDE(${chunk})KDT_PRELUDE\"\n")
  math(EXPR pos "${pos} + 8000")
endwhile()
file(WRITE ${OUTPUT}.tmp "// Generated from include/kdt/runtime by cmake/EmbedRuntime.cmake.\n#include \"kdt/emit/emit_cpp.h\"\nnamespace kdt {\nextern const char* const kRuntimePrelude;\nconst char* const kRuntimePrelude =\n${chunks};\n}  // namespace kdt\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
