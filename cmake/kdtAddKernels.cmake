# kdt_add_kernels: generate C++ (or CUDA) from KD sources at build time and
# add it to a target. Installed with the kdt package; loaded by kdtConfig.cmake.
#
#   kdt_add_kernels(TARGET t
#                   SOURCES a.kd b.kd
#                   [EMIT cpp|cuda]              # default cpp
#                   [DEFINES NAME=VALUE ...]     # kdt -D
#                   [INCLUDE_DIRS dir ...]       # kdt -I (relative: to the current source dir)
#                   [OPTIONS flag ...]           # more kdt flags, e.g. --no-checks, --arch=sm_80
#                   [OUTPUT_DIR dir]             # default ${CMAKE_CURRENT_BINARY_DIR}/kdt_kernels/<t>
#                   [OUTPUTS_VAR var])           # receives the generated files
#
# EMIT cpp writes OUTPUT_DIR/<name>.kd.h for each <name>.kd: a self-contained
# header (the runtime prelude is embedded, every function inline) that
# declares kdt_kernels::<kernel>(...). OUTPUT_DIR is added to the target's
# include directories, so `#include "<name>.kd.h"` works. EMIT cuda writes
# OUTPUT_DIR/<name>.kd.cu and adds it to the target's sources: the project
# must enable the CUDA language (a configure error says so otherwise), and
# kdt's --arch comes from the target's CUDA_ARCHITECTURES (the lowest
# listed, so that the code runs on every one) unless OPTIONS give --arch.
#
# kdt writes a depfile (-MD -MF) listing every file it read, so editing an
# included .kd file regenerates exactly the outputs that include it. With
# Ninja, an output whose text did not change keeps its timestamp (restat:
# no recompilation). Make has no restat: there the output is touched after
# every run of kdt, or Make would run kdt again at every build.

# Ninja: paths in DEPFILEs are taken relative to the build tree (CMP0116),
# and DEPFILE works with the Makefile generators from CMake 3.20.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.28)

function(kdt_add_kernels)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;EMIT;OUTPUT_DIR;OUTPUTS_VAR"
                        "SOURCES;DEFINES;INCLUDE_DIRS;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kdt_add_kernels: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "kdt_add_kernels: TARGET is required")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "kdt_add_kernels: `${ARG_TARGET}` is not a target")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "kdt_add_kernels: SOURCES is required")
  endif()
  if(NOT ARG_EMIT)
    set(ARG_EMIT cpp)
  endif()
  if(ARG_EMIT STREQUAL "cpp")
    set(suffix ".kd.h")
  elseif(ARG_EMIT STREQUAL "cuda")
    set(suffix ".kd.cu")
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST languages)
      message(FATAL_ERROR "kdt_add_kernels: EMIT cuda adds .kd.cu sources to ${ARG_TARGET}, but the CUDA language "
                          "is not enabled, so they would never be compiled: add enable_language(CUDA) (or "
                          "LANGUAGES CXX CUDA in project()) before kdt_add_kernels, or use EMIT cpp")
    endif()
  else()
    message(FATAL_ERROR "kdt_add_kernels: EMIT must be cpp or cuda, not `${ARG_EMIT}`")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/kdt_kernels/${ARG_TARGET}")
  endif()
  get_filename_component(out_dir "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  file(MAKE_DIRECTORY "${out_dir}")

  set(flags "--emit=${ARG_EMIT}")
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND flags "-D" "${define}")
  endforeach()
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND flags "-I" "${dir}")
  endforeach()
  list(APPEND flags ${ARG_OPTIONS})
  if(ARG_EMIT STREQUAL "cuda" AND NOT ARG_OPTIONS MATCHES "--arch")
    get_target_property(architectures ${ARG_TARGET} CUDA_ARCHITECTURES)
    set(lowest "")
    foreach(arch IN LISTS architectures)
      # 90, 90-real, 90a-virtual, ...; native, all and all-major name no one arch.
      if(arch MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
        set(name "${CMAKE_MATCH_1}")
        string(REGEX REPLACE "[af]$" "" number "${name}")
        if(lowest STREQUAL "" OR number LESS lowest_number)
          set(lowest "${name}")
          set(lowest_number "${number}")
        endif()
      endif()
    endforeach()
    if(NOT lowest STREQUAL "")
      list(APPEND flags "--arch=sm_${lowest}")
    endif()
  endif()

  set(outputs "")
  foreach(source IN LISTS ARG_SOURCES)
    get_filename_component(source_path "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${source_path}" NAME_WLE)
    set(output "${out_dir}/${name}${suffix}")
    if(output IN_LIST outputs)
      message(FATAL_ERROR "kdt_add_kernels: two sources named `${name}.kd` for target ${ARG_TARGET}")
    endif()
    file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${output}")
    # Make has no restat: an output kdt left unchanged (older than its
    # input) would make Make run kdt again at every build.
    set(touch "")
    if(CMAKE_GENERATOR MATCHES "Make")
      set(touch COMMAND ${CMAKE_COMMAND} -E touch "${output}")
    endif()
    add_custom_command(
      OUTPUT "${output}"
      COMMAND kdt::kdt ${flags} -o "${output}" -MD -MF "${output}.d" -MT "${output}" "${source_path}"
      ${touch}
      MAIN_DEPENDENCY "${source_path}"
      DEPENDS kdt::kdt
      DEPFILE "${output}.d"
      COMMENT "Generating ${shown} with kdt"
      VERBATIM)
    list(APPEND outputs "${output}")
  endforeach()

  target_sources(${ARG_TARGET} PRIVATE ${outputs})
  if(ARG_EMIT STREQUAL "cpp")
    set_source_files_properties(${outputs} PROPERTIES HEADER_FILE_ONLY ON)
    target_include_directories(${ARG_TARGET} PRIVATE "${out_dir}")
    target_compile_features(${ARG_TARGET} PRIVATE cxx_std_17)
  endif()
  if(ARG_OUTPUTS_VAR)
    set(${ARG_OUTPUTS_VAR} ${outputs} PARENT_SCOPE)
  endif()
endfunction()

cmake_policy(POP)
