# Tests of the Python package (python/onnxexp). Included from
# tests/CMakeLists.txt. They load libonnxexp into the interpreter, which a
# sanitized library cannot be: plain builds only.
#
#   python.roundtrip  every round-trip fixture again through onnxexp.export
#                     in process: byte-identical to the CLI's file, checked
#                     in onnxruntime against torch; dump + CLI == export
#   python.api        torch.onnx.export's signature (every parameter
#                     supported or refused by name), errors with the
#                     model's source line, dump's safetensors against the C
#                     reader, the ctypes layout against the compiler's
#   python.memory     a 400 MB model: peak RSS over the export within 10%
#                     of the weights (no copy)
#   python.install    the package as `cmake --install` puts it, alone
if(ONNXEXP_SANITIZE OR NOT TARGET onnxexp_shared)
  return()
endif()
set(ONNXEXP_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and onnx for the round-trip tests")
set(_py_dir ${CMAKE_CURRENT_LIST_DIR}/python)
set(_py_env "ONNXEXP_LIBRARY=$<TARGET_FILE:onnxexp_shared>;PYTHONDONTWRITEBYTECODE=1")

add_executable(python_abi_offsets ${_py_dir}/abi_offsets.c)
target_include_directories(python_abi_offsets PRIVATE
  $<TARGET_PROPERTY:onnxexp_shared,INTERFACE_INCLUDE_DIRECTORIES>)

find_program(ONNXEXP_PY_NODE node)
if(ONNXEXP_PY_NODE)
  add_test(NAME python.roundtrip
    COMMAND ${ONNXEXP_PYTHON} ${_py_dir}/roundtrip_py.py --onnxexp $<TARGET_FILE:onnxexp>
            --fixtures ${OXP_FIXTURES_DIR} --work ${CMAKE_BINARY_DIR}/python-roundtrip
            --node ${ONNXEXP_PY_NODE} -q --first-last)
  set_tests_properties(python.roundtrip PROPERTIES TIMEOUT 600 LABELS "python;roundtrip"
                       FIXTURES_REQUIRED fixtures ENVIRONMENT "${_py_env}")
endif()
add_test(NAME python.api
  COMMAND ${ONNXEXP_PYTHON} ${_py_dir}/test_api.py --onnxexp $<TARGET_FILE:onnxexp>
          --abi $<TARGET_FILE:python_abi_offsets> --work ${CMAKE_BINARY_DIR}/python-api)
add_test(NAME python.memory
  COMMAND ${ONNXEXP_PYTHON} ${_py_dir}/test_memory.py --work ${CMAKE_BINARY_DIR}/python-memory)
set_tests_properties(python.api python.memory PROPERTIES TIMEOUT 300 LABELS python
                     ENVIRONMENT "${_py_env}")
# one 400 MB model at a time
set_tests_properties(python.memory PROPERTIES RESOURCE_LOCK big_memory)
if(TEST api.install)
  add_test(NAME python.install
    COMMAND /bin/sh ${_py_dir}/install.sh ${CMAKE_BINARY_DIR}/api-test/prefix ${ONNXEXP_PYTHON})
  set_tests_properties(python.install PROPERTIES LABELS python TIMEOUT 120
                       FIXTURES_REQUIRED api_prefix RESOURCE_LOCK api_prefix_use)
endif()
