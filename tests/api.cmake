# Tests of the public C API (libonnxexp). Included from tests/CMakeLists.txt.
#
#   unit.test_api              Check suite over every public call, linked
#                              against the public static library
#   api.threads_tsan           concurrent exports + (un)registration under
#                              ThreadSanitizer, no report allowed
#   api.symbols                libonnxexp.so exports only onnxexp_* names
#   api.install                cmake --install into a scratch prefix
#   api.frontend_pkgconfig     examples/frontend.c built with pkg-config
#   api.frontend_find_package  ... and with find_package(onnxexp) (shared
#                              and static); both outputs run in onnxruntime

set(_api_src ${CMAKE_CURRENT_LIST_DIR})
set(_api_work ${CMAKE_BINARY_DIR}/api-test)

# The unit suite was added by the tests/unit glob against oxp_core only;
# it must see nothing but the public library.
if(TARGET test_api)
  set_property(TARGET test_api PROPERTY LINK_LIBRARIES onnxexp_static PkgConfig::CHECK)
  target_include_directories(test_api PRIVATE ${_api_src}/unit)
endif()

# The ThreadSanitizer program cannot link with another sanitizer, and the
# packaging tests build plain programs that cannot link a sanitized
# library: they run in the plain build only.
if(NOT ONNXEXP_SANITIZE)
# ThreadSanitizer build: the core, the shims and the test, all
# instrumented (protobuf-c and the generated onnx code are not, they only
# touch per-export memory).
find_package(Threads REQUIRED)
file(GLOB _api_shims CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/export/public/*.c)
add_executable(api_threads_tsan ${_api_src}/api/threads.c ${_api_shims} ${OXP_CORE_SOURCES})
target_compile_options(api_threads_tsan PRIVATE -fsanitize=thread -fno-omit-frame-pointer -O1 -g)
target_link_options(api_threads_tsan PRIVATE -fsanitize=thread)
target_include_directories(api_threads_tsan PRIVATE
  ${CMAKE_SOURCE_DIR}/src/export/public
  ${CMAKE_BINARY_DIR}/src/export/public/include
  ${OXP_CORE_INCLUDE_DIRS})
target_link_libraries(api_threads_tsan PRIVATE onnx_proto PkgConfig::PROTOBUF_C Threads::Threads m)
add_dependencies(api_threads_tsan oxp_op_rows)
add_test(NAME api.threads_tsan COMMAND api_threads_tsan)
set_tests_properties(api.threads_tsan PROPERTIES
  ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1:exitcode=66:second_deadlock_stack=1"
  TIMEOUT 300)

add_test(NAME api.symbols
  COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:onnxexp_shared>
          -P ${_api_src}/api/check_symbols.cmake)

# Installed-library tests: one scratch prefix, set up once.
find_program(ONNXEXP_API_NODE node)
add_test(NAME api.install
  COMMAND /bin/sh ${_api_src}/api/install.sh ${CMAKE_BINARY_DIR} ${_api_work})
set_tests_properties(api.install PROPERTIES FIXTURES_SETUP api_prefix TIMEOUT 120)
foreach(mode pkgconfig find_package)
  add_test(NAME api.frontend_${mode}
    COMMAND /bin/sh ${_api_src}/api/frontend.sh ${mode} ${CMAKE_SOURCE_DIR} ${_api_work}
            ${CMAKE_C_COMPILER} ${CMAKE_COMMAND} "${ONNXEXP_API_NODE}")
  set_tests_properties(api.frontend_${mode} PROPERTIES
    FIXTURES_REQUIRED api_prefix TIMEOUT 300 RESOURCE_LOCK api_prefix_use)
endforeach()
endif()

# Used by the roundtrip test (--api-determinism): every round-trip export
# again through the library, 1 and 4 threads at once, byte for byte.
add_executable(api_determinism ${_api_src}/api/determinism.c)
target_link_libraries(api_determinism PRIVATE onnxexp_static Threads::Threads)
