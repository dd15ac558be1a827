# Scale tests: external data in both modes, exported by the CLI, checked
# with onnx and run in onnxruntime-node. Included from tests/CMakeLists.txt.
# (The benchmark, bench/run.sh, is not a test: it needs minutes and GBs.)
set(ONNXEXP_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and onnx for the round-trip tests")
find_program(ONNXEXP_NODE node)
if(NOT ONNXEXP_NODE OR NOT TARGET onnxexp)
  return()
endif()

add_test(NAME roundtrip.external_data
  COMMAND ${ONNXEXP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/roundtrip/external.py
          --onnxexp $<TARGET_FILE:onnxexp>
          --work ${CMAKE_BINARY_DIR}/roundtrip_external
          --node ${ONNXEXP_NODE})
set_tests_properties(roundtrip.external_data PROPERTIES TIMEOUT 300 LABELS roundtrip)
