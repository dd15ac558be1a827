# Round-trip tests: fixtures made with torch, exported with onnxexp, run in
# onnxruntime-node, compared with torch. Included from tests/CMakeLists.txt.
#
#   roundtrip                  generate all fixtures, then roundtrip.py on them
#   roundtrip.options_selftest the harness's option checks catch planted faults
#   roundtrip.harness_selftest the harness passes torch's own export and
#                              catches planted faults (needs no onnxexp)
#
# Needs torch 1.13 + onnx in ONNXEXP_PYTHON and onnxruntime-node in
# tests/node/node_modules (scripts/setup.sh installs both).

set(ONNXEXP_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and onnx for the round-trip tests")
find_program(ONNXEXP_NODE node)
if(NOT ONNXEXP_NODE)
  message(WARNING "node not found: round-trip tests disabled (run scripts/setup.sh)")
  return()
endif()

set(_rt_dir ${CMAKE_CURRENT_LIST_DIR})
set(_rt_fixtures ${CMAKE_BINARY_DIR}/fixtures)
set(_rt_work ${CMAKE_BINARY_DIR}/roundtrip)

if(TARGET onnxexp)
  # One test: the generator (asserts op coverage) and then the harness.
  add_test(NAME roundtrip
    COMMAND /bin/sh -c "\"$0\" \"$1\" \"$2\" -q && \"$0\" \"$3\" --onnxexp \"$4\" --fixtures \"$2\" --work \"$5\" --node \"$6\""
            ${ONNXEXP_PYTHON}
            ${_rt_dir}/fixtures/gen_fixtures.py
            ${_rt_fixtures}
            ${_rt_dir}/roundtrip/roundtrip.py
            $<TARGET_FILE:onnxexp>
            ${_rt_work}
            ${ONNXEXP_NODE})
  set_tests_properties(roundtrip PROPERTIES TIMEOUT 300 LABELS roundtrip)
  # the option checks of the harness (input sets, dim_params, expect,
  # expect_error lists, fed weights, determinism) catch planted faults
  add_test(NAME roundtrip.options_selftest
    COMMAND ${ONNXEXP_PYTHON} ${_rt_dir}/roundtrip/selftest_options.py --onnxexp $<TARGET_FILE:onnxexp>
            --work ${CMAKE_BINARY_DIR}/roundtrip_options_selftest --node ${ONNXEXP_NODE})
  set_tests_properties(roundtrip.options_selftest PROPERTIES TIMEOUT 300 LABELS roundtrip)
endif()

add_test(NAME roundtrip.harness_selftest
  COMMAND ${ONNXEXP_PYTHON} ${_rt_dir}/roundtrip/selftest.py
          --work ${CMAKE_BINARY_DIR}/roundtrip_selftest --node ${ONNXEXP_NODE})
set_tests_properties(roundtrip.harness_selftest PROPERTIES TIMEOUT 300 LABELS roundtrip)
