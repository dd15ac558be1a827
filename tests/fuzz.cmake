# Fuzz targets (tests/fuzz/): each is one LLVMFuzzerTestOneInput over the
# core, built twice over:
#  - always (when the compiler has ASan and UBSan): replay programs that
#    run the committed corpus tests/fuzz/corpus/<target>/, as ctest
#    fuzz.replay. CI depends on nothing beyond gcc.
#  - with -DONNXEXP_LIBFUZZER=ON and clang: libFuzzer programs for
#    coverage-guided runs (tests/fuzz/README.md says how), and ctest
#    fuzz.run_<target>, which runs each for ONNXEXP_FUZZ_SECONDS (the
#    sanitized build of scripts/test.sh turns this on).
# Both compile the core's sources again with the sanitizers, apart from
# oxp_core, so the rest of the build keeps its flags.
include(CheckCSourceCompiles)

option(ONNXEXP_LIBFUZZER "Build libFuzzer fuzz targets (clang)" OFF)
set(ONNXEXP_FUZZ_SECONDS 30 CACHE STRING "How long ctest's fuzz.run_* run each libFuzzer target")

set(OXP_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(OXP_FUZZ_TARGETS fuzz_parse_ir fuzz_safetensors fuzz_export fuzz_check_model)
set(OXP_FUZZ_SAN -fsanitize=address,undefined -fno-sanitize-recover=all)
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  # clang's "undefined" has it already; gcc's does not.
  list(APPEND OXP_FUZZ_SAN -fsanitize=float-cast-overflow)
endif()

set(CMAKE_REQUIRED_FLAGS "${OXP_FUZZ_SAN}")
string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${CMAKE_REQUIRED_FLAGS}")
set(CMAKE_REQUIRED_LINK_OPTIONS ${OXP_FUZZ_SAN})
check_c_source_compiles("int main(void) { return 0; }" OXP_HAVE_ASAN_UBSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)

# A sanitized copy of the core, compiled with extra flags.
function(oxp_fuzz_core name)
  add_library(${name} STATIC ${OXP_CORE_SOURCES})
  target_include_directories(${name} PUBLIC ${OXP_CORE_INCLUDE_DIRS})
  target_link_libraries(${name} PUBLIC onnx_proto PkgConfig::PROTOBUF_C Threads::Threads m)
  target_compile_options(${name} PRIVATE -O1 -g -fno-omit-frame-pointer ${ARGN})
  add_dependencies(${name} oxp_op_rows)
endfunction()

if(OXP_HAVE_ASAN_UBSAN)
  oxp_fuzz_core(oxp_core_asan ${OXP_FUZZ_SAN})
  foreach(t ${OXP_FUZZ_TARGETS})
    add_executable(replay_${t} ${OXP_FUZZ_DIR}/${t}.c
                   ${OXP_FUZZ_DIR}/replay_main.c)
    target_compile_options(replay_${t} PRIVATE -O1 -g -fno-omit-frame-pointer ${OXP_FUZZ_SAN})
    target_link_options(replay_${t} PRIVATE ${OXP_FUZZ_SAN})
    target_link_libraries(replay_${t} PRIVATE oxp_core_asan)
  endforeach()
  # An allocation above 2 GB fails the replay, as libFuzzer's malloc limit
  # (-rss_limit_mb=2048) does: sizes from the IR must be checked first.
  add_test(NAME fuzz.replay
           COMMAND sh ${OXP_FUZZ_DIR}/replay.sh ${CMAKE_CURRENT_BINARY_DIR} ${OXP_FUZZ_DIR}/corpus)
  set_tests_properties(fuzz.replay PROPERTIES TIMEOUT 120
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:max_allocation_size_mb=2048:allocator_may_return_null=0;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
else()
  message(STATUS "fuzz.replay: ${CMAKE_C_COMPILER_ID} lacks -fsanitize=address,undefined; skipped")
endif()

if(ONNXEXP_LIBFUZZER)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ONNXEXP_LIBFUZZER needs clang (-DCMAKE_C_COMPILER=clang)")
  endif()
  oxp_fuzz_core(oxp_core_fuzz -fsanitize=fuzzer-no-link ${OXP_FUZZ_SAN})
  foreach(t ${OXP_FUZZ_TARGETS})
    add_executable(${t} ${OXP_FUZZ_DIR}/${t}.c)
    target_compile_options(${t} PRIVATE -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer ${OXP_FUZZ_SAN})
    target_link_options(${t} PRIVATE -fsanitize=fuzzer ${OXP_FUZZ_SAN})
    target_link_libraries(${t} PRIVATE oxp_core_fuzz)
    add_test(NAME fuzz.run_${t}
             COMMAND sh ${OXP_FUZZ_DIR}/ci_run.sh $<TARGET_FILE:${t}> ${t}
                     ${ONNXEXP_FUZZ_SECONDS} ${CMAKE_SOURCE_DIR}
                     ${CMAKE_CURRENT_BINARY_DIR}/fuzz-run/${t})
    set_tests_properties(fuzz.run_${t} PROPERTIES LABELS fuzz
      TIMEOUT 600 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1")
  endforeach()
endif()
