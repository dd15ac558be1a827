# Differential tests (tests/difftest/, issues 19 and 17): random PyTorch
# programs exported by onnxexp, run in onnxruntime-node, compared with torch
# eager. Included from tests/CMakeLists.txt.
#
#   difftest.ops    1,000 programs of seed 1 in ops mode (random DAGs of the
#                   mapped aten ops; traced, scripted, dynamic axes). Fails
#                   on any mismatch or crash; each is reduced and written to
#                   build/difftest-ops/found/.
#   difftest.views  500 programs of seed 1 in views mode (in-place writes
#                   through chains of views, issue 17; also `if` and
#                   `for` around writes).
#   A sanitizer build runs the first sixth of each.
#
# The known bugs the generator steers around are in tests/difftest/known.py
# (FINDINGS.md). Hand runs: tests/difftest/run.py --seconds N --seed S.
# Needs torch 1.13 + onnx in ONNXEXP_PYTHON and onnxruntime-node in
# tests/node/node_modules, as the round-trip tests do.

set(ONNXEXP_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with torch and onnx for the round-trip tests")
find_program(ONNXEXP_NODE node)
if(NOT ONNXEXP_NODE OR NOT TARGET onnxexp)
  return()
endif()

set(_dt_dir ${CMAKE_CURRENT_LIST_DIR}/difftest)
# A sanitizer build runs a sixth of each sample: its value there is memory
# errors on unusual graphs, which the first sixth already reaches; the
# mismatch check is the plain build's.
foreach(_mode ops views)
  if(_mode STREQUAL "ops")
    set(_count 1000)
  else()
    set(_count 500)
  endif()
  if(ONNXEXP_SANITIZE)
    math(EXPR _count "${_count} / 6")
  endif()
  add_test(NAME difftest.${_mode}
    COMMAND ${ONNXEXP_PYTHON} ${_dt_dir}/run.py --mode ${_mode} --seed 1 --count ${_count}
            --onnxexp $<TARGET_FILE:onnxexp> --node ${ONNXEXP_NODE}
            --work ${CMAKE_BINARY_DIR}/difftest-${_mode} --no-peer -q
            --reduce-seconds 15 --max-reduce 5)
  set_tests_properties(difftest.${_mode} PROPERTIES TIMEOUT 600 LABELS difftest)
endforeach()


# views_quick.py: the first views generator (functionalization was built
# against it), 250 traced and 250 scripted programs of fixed seeds.
add_test(NAME difftest.views_quick_traced
  COMMAND ${ONNXEXP_PYTHON} ${_dt_dir}/views_quick.py $<TARGET_FILE:onnxexp> 101 250
          ${CMAKE_BINARY_DIR}/views-quick-traced)
add_test(NAME difftest.views_quick_scripted
  COMMAND ${ONNXEXP_PYTHON} ${_dt_dir}/views_quick.py $<TARGET_FILE:onnxexp> 102 250
          ${CMAKE_BINARY_DIR}/views-quick-scripted script)
set_tests_properties(difftest.views_quick_traced difftest.views_quick_scripted
                     PROPERTIES TIMEOUT 600 LABELS difftest)

# The reproducers of fixed bugs (tests/difftest/found/*, "fixed" in their
# meta.json) replayed: each must stay fixed.
add_test(NAME difftest.fixed
  COMMAND ${ONNXEXP_PYTHON} ${_dt_dir}/catalog.py --fixed --onnxexp $<TARGET_FILE:onnxexp>
          --node ${ONNXEXP_NODE})
set_tests_properties(difftest.fixed PROPERTIES TIMEOUT 600 LABELS difftest)
