# Locates the Debian packages kdt builds with: antlr4 (tool 4.7.2),
# libantlr4-runtime-dev (4.9), Boost.Program_options, nlohmann/json, doctest.

find_program(ANTLR4_TOOL antlr4 REQUIRED DOC "The ANTLR 4 tool (Debian package antlr4)")

find_path(ANTLR4_INCLUDE_DIR antlr4-runtime.h PATH_SUFFIXES antlr4-runtime REQUIRED
  DOC "ANTLR 4 C++ runtime headers (Debian package libantlr4-runtime-dev)")
find_library(ANTLR4_RUNTIME_LIBRARY NAMES antlr4-runtime REQUIRED)

# Debian's ANTLR 4.9 headers do not compile with clang: antlr4-runtime.h
# includes misc/InterpreterDataReader.h, which default-constructs a
# dfa::Vocabulary whose default constructor clang (rightly) deletes. kdt does
# not use that header, so clang builds (KDT_FUZZ, coverage) find first a
# copy of antlr4-runtime.h without it.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  file(READ ${ANTLR4_INCLUDE_DIR}/antlr4-runtime.h KDT_ANTLR_UMBRELLA)
  string(REPLACE "#include \"misc/InterpreterDataReader.h\"" "" KDT_ANTLR_UMBRELLA "${KDT_ANTLR_UMBRELLA}")
  # Written only when it changes, so that reconfiguring rebuilds nothing.
  file(WRITE ${CMAKE_BINARY_DIR}/CMakeFiles/antlr4-runtime.h.in "${KDT_ANTLR_UMBRELLA}")
  configure_file(${CMAKE_BINARY_DIR}/CMakeFiles/antlr4-runtime.h.in ${CMAKE_BINARY_DIR}/antlr-clang/antlr4-runtime.h
                 COPYONLY)
  include_directories(BEFORE SYSTEM ${CMAKE_BINARY_DIR}/antlr-clang)
endif()

find_package(Boost 1.70 REQUIRED COMPONENTS program_options)
find_package(nlohmann_json 3 REQUIRED)
find_path(DOCTEST_INCLUDE_DIR doctest/doctest.h REQUIRED DOC "doctest (Debian package doctest-dev)")

# kdt_add_antlr_grammar(TARGET LEXER lexer.g4 PARSER parser.g4)
# Generates C++ into the build tree at build time and compiles it into a
# static library; ANTLR's headers stay private to whoever links it.
function(kdt_add_antlr_grammar target)
  cmake_parse_arguments(ARG "" "LEXER;PARSER" "" ${ARGN})
  get_filename_component(lexer_name ${ARG_LEXER} NAME_WE)
  get_filename_component(parser_name ${ARG_PARSER} NAME_WE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/antlr)
  set(generated
    ${out}/${lexer_name}.cpp ${out}/${lexer_name}.h
    ${out}/${parser_name}.cpp ${out}/${parser_name}.h)
  add_custom_command(
    OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
    COMMAND ${ANTLR4_TOOL} -Dlanguage=Cpp -no-listener -no-visitor -Xexact-output-dir -o ${out} ${ARG_LEXER}
    COMMAND ${ANTLR4_TOOL} -Dlanguage=Cpp -no-listener -no-visitor -Xexact-output-dir -lib ${out} -o ${out}
            ${ARG_PARSER}
    DEPENDS ${ARG_LEXER} ${ARG_PARSER}
    COMMENT "Generating the KD parser with ANTLR"
    VERBATIM)
  add_library(${target} STATIC ${out}/${lexer_name}.cpp ${out}/${parser_name}.cpp)
  # Generated code is not ours to lint.
  target_compile_options(${target} PRIVATE -w)
  target_include_directories(${target} SYSTEM PUBLIC ${out} ${ANTLR4_INCLUDE_DIR})
  target_link_libraries(${target} PUBLIC ${ANTLR4_RUNTIME_LIBRARY})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
