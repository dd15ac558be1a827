# Bad-input suite (tests/bad/): every case of tests/bad/cases.txt must fail
# with its exit status and a located message, never crash, and leave no
# file behind nor change an existing output. Included from
# tests/CMakeLists.txt. Needs only python3 (ONNXEXP_PYTHON).

if(NOT TARGET onnxexp)
  return()
endif()
set(ONNXEXP_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and onnx for the round-trip tests")

add_test(NAME bad.inputs
  COMMAND ${ONNXEXP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/bad/run_bad.py
          --onnxexp $<TARGET_FILE:onnxexp> --work ${CMAKE_BINARY_DIR}/bad)
set_tests_properties(bad.inputs PROPERTIES TIMEOUT 60 LABELS bad
  ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
