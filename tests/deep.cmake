# Deep and huge inputs (tests/deep/). Included from tests/CMakeLists.txt.
#
#   deep.inputs  block and type nesting at onnxexp's limits and far past
#                them (named, located errors; a 1 MB stack suffices), and
#                a flat chain of 300,000 nodes (100,000 in a sanitizer
#                build, which is several times slower and bigger): any
#                recursion per node would overflow the 1 MB stack long
#                before. The million-node graph is bench/'s "core" row.
#   deep.builder the builder API refuses blocks past the same limit
#
# The inputs are generated at run time into the build tree. Needs python3
# with onnx (ONNXEXP_PYTHON, default /usr/bin/python3).

if(NOT TARGET onnxexp)
  return()
endif()
set(ONNXEXP_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and onnx for the round-trip tests")
if(ONNXEXP_SANITIZE)
  set(_deep_chain 100000)
else()
  set(_deep_chain 300000)
endif()
add_test(NAME deep.inputs
  COMMAND ${ONNXEXP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/deep/run_deep.py
          --onnxexp $<TARGET_FILE:onnxexp> --work ${CMAKE_BINARY_DIR}/deep
          --chain ${_deep_chain})
# The timeout is generous because the test proves the absence of
# recursion, not speed.
set_tests_properties(deep.inputs PROPERTIES TIMEOUT 300 LABELS deep
  ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)

add_executable(deep_builder_depth ${CMAKE_CURRENT_LIST_DIR}/deep/builder_depth.c)
target_include_directories(deep_builder_depth PRIVATE
  ${OXP_CORE_INCLUDE_DIRS})
target_link_libraries(deep_builder_depth PRIVATE onnxexp_static)
add_test(NAME deep.builder COMMAND deep_builder_depth)
set_tests_properties(deep.builder PROPERTIES TIMEOUT 60 LABELS deep)
