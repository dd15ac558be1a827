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
set(_rt_fixtures ${OXP_FIXTURES_DIR})
set(_rt_work ${CMAKE_BINARY_DIR}/roundtrip)

if(TARGET onnxexp)
  # The generator runs once (it asserts op coverage); the round trip, the
  # peer comparison and the docs check read what it wrote.
  if(NOT ONNXEXP_FIXTURES_DIR)
    add_test(NAME fixtures.generate
      COMMAND ${ONNXEXP_PYTHON} ${_rt_dir}/fixtures/gen_fixtures.py ${_rt_fixtures} -q)
    set_tests_properties(fixtures.generate PROPERTIES TIMEOUT 900 LABELS roundtrip
                         FIXTURES_SETUP fixtures)
  endif()
  # In the sanitized build each fixture is exported at its lowest and
  # highest opset (CLI twice, the library in 1 and 4 threads) for what
  # ASan and UBSan see in onnxexp; every opset, checking and running the
  # models are the plain build's.
  if(ONNXEXP_SANITIZE)
    set(_rt_mode --export-only --first-last)
  else()
    set(_rt_mode --results ${CMAKE_BINARY_DIR}/roundtrip-results.json)
  endif()
  add_test(NAME roundtrip
    COMMAND ${ONNXEXP_PYTHON} ${_rt_dir}/roundtrip/roundtrip.py --onnxexp $<TARGET_FILE:onnxexp>
            --fixtures ${_rt_fixtures} --work ${_rt_work} --node ${ONNXEXP_NODE} -q ${_rt_mode}
            --api-determinism $<TARGET_FILE:api_determinism>)
  set_tests_properties(roundtrip PROPERTIES TIMEOUT 600 LABELS roundtrip
                       FIXTURES_REQUIRED fixtures)
  # onnxexp's graphs must not have more nodes than torch.onnx.export's.
  # Node counts do not depend on the build, and the test's time is torch's:
  # the plain build runs it once.
  if(NOT ONNXEXP_SANITIZE)
    add_test(NAME peer.node_counts
      COMMAND ${ONNXEXP_PYTHON} ${_rt_dir}/compare_peer --onnxexp $<TARGET_FILE:onnxexp>
              --fixtures ${_rt_fixtures} --work ${CMAKE_BINARY_DIR}/peer)
    set_tests_properties(peer.node_counts PROPERTIES TIMEOUT 600 LABELS roundtrip
                         FIXTURES_REQUIRED fixtures)
  endif()
  # Every fixture with its node types erased, as torch prints scripted
  # graphs: exported with torch's output dtypes or refused with a located
  # error, never exported with a dtype the exporter made up.
  add_test(NAME roundtrip.erased_types
    COMMAND ${ONNXEXP_PYTHON} ${_rt_dir}/roundtrip/erased_types.py --onnxexp $<TARGET_FILE:onnxexp>
            --fixtures ${_rt_fixtures} --work ${CMAKE_BINARY_DIR}/roundtrip_erased)
  set_tests_properties(roundtrip.erased_types PROPERTIES TIMEOUT 600 LABELS roundtrip
                       FIXTURES_REQUIRED fixtures)
  # A few fixtures with their weights (a CNN, a transformer, RNNs, control
  # flow, dynamic axes, a rejected weight) exported under valgrind memcheck
  # and checked as the round trip checks them: any memory error or leak of
  # any kind exits 99, which fails the case. Not in a sanitized build:
  # valgrind cannot run one.
  find_program(ONNXEXP_VALGRIND valgrind)
  if(ONNXEXP_VALGRIND AND NOT ONNXEXP_SANITIZE)
    add_test(NAME roundtrip.valgrind
      COMMAND ${ONNXEXP_PYTHON} ${_rt_dir}/roundtrip/roundtrip.py --onnxexp $<TARGET_FILE:onnxexp>
              --fixtures ${_rt_fixtures} --work ${CMAKE_BINARY_DIR}/roundtrip_valgrind
              --node ${ONNXEXP_NODE} -q --opset 17 --no-determinism -j 1
              --wrapper "${ONNXEXP_VALGRIND} -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
              --only model_resnet18 model_transformer model_lstm_lm model_gru_encoder rnn_packed
                     ctl_if_in_loop_mix cnn_bn_pool opt_dyn_attention neg_weight_shape)
    set_tests_properties(roundtrip.valgrind PROPERTIES TIMEOUT 600 LABELS "roundtrip;valgrind"
                         FIXTURES_REQUIRED fixtures)
  endif()
  # Every fx_*.py module is in the fixture set above (quantized models,
  # the ops no other exporter maps, ...); one family alone, by hand:
  #   gen_fixtures.py DIR --module fx_quant && roundtrip.py --fixtures DIR ...
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
