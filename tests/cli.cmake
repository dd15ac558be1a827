# CLI behaviour and bad-input tests (tests/cli/). Included from
# tests/CMakeLists.txt.
#
#   cli.behaviour   flags, exit status, diagnostics, output files, determinism
#   cli.fuzz        ~500 mutated IR / safetensors / flag cases: exit 0, 1 or 2,
#                   never a crash, nothing left behind on failure
#   cli.output_safety  SIGKILL mid-write and RLIMIT_FSIZE leave the previous
#                   output intact and no temporary behind
#   cli.inputs_untouched  an output (model, external data file) that is an
#                   input (IR, weights) or the other output, by name, symlink
#                   or hard link: exit 2 naming both, nothing written
#   cli.valgrind    a spread subset of the fuzz cases, the bad-input
#                   behaviour tests and the refusals above under valgrind
#                   memcheck (if installed)
#
# Needs python3 with onnx (ONNXEXP_PYTHON, default /usr/bin/python3).

if(NOT TARGET onnxexp)
  return()
endif()
set(ONNXEXP_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and onnx for the round-trip tests")
set(_cli_dir ${CMAKE_CURRENT_LIST_DIR}/cli)
set(_cli_work ${CMAKE_BINARY_DIR}/cli)

add_test(NAME cli.behaviour
  COMMAND ${ONNXEXP_PYTHON} ${_cli_dir}/test_cli.py
          --onnxexp $<TARGET_FILE:onnxexp> --work ${_cli_work}/behaviour)
add_test(NAME cli.fuzz
  COMMAND ${ONNXEXP_PYTHON} ${_cli_dir}/fuzz_cli.py
          --onnxexp $<TARGET_FILE:onnxexp> --work ${_cli_work}/fuzz)
add_test(NAME cli.output_safety
  COMMAND ${ONNXEXP_PYTHON} ${_cli_dir}/test_output_safety.py
          --onnxexp $<TARGET_FILE:onnxexp> --work ${_cli_work}/output_safety)
add_test(NAME cli.inputs_untouched
  COMMAND ${ONNXEXP_PYTHON} ${_cli_dir}/test_inputs_untouched.py
          --onnxexp $<TARGET_FILE:onnxexp> --work ${_cli_work}/inputs_untouched)
set_tests_properties(cli.behaviour cli.fuzz cli.output_safety cli.inputs_untouched PROPERTIES TIMEOUT 120 LABELS cli
  ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)

find_program(ONNXEXP_VALGRIND valgrind)
# valgrind cannot run a sanitized binary.
if(ONNXEXP_VALGRIND AND NOT ONNXEXP_SANITIZE)
  add_test(NAME cli.valgrind
    COMMAND /bin/sh -c "\"$0\" \"$1\" --onnxexp \"$2\" --work \"$3/fuzz\" --valgrind \"$4\" --limit 12 && \"$0\" \"$5\" --onnxexp \"$2\" --work \"$3/behaviour\" --valgrind \"$4\" -k weights_truncated,malformed_ir_column,unknown_flags,ir_from_a_pipe,existing_output_untouched && \"$0\" \"$6\" --onnxexp \"$2\" --work \"$3/inputs_untouched\" --valgrind \"$4\" -k model_over_the_default_sidecar,data_over_the_model"
            ${ONNXEXP_PYTHON} ${_cli_dir}/fuzz_cli.py $<TARGET_FILE:onnxexp>
            ${_cli_work}/valgrind ${ONNXEXP_VALGRIND} ${_cli_dir}/test_cli.py
            ${_cli_dir}/test_inputs_untouched.py)
  set_tests_properties(cli.valgrind PROPERTIES TIMEOUT 600 LABELS "cli;valgrind"
    ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
endif()
