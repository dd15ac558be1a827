# Fault injection (tests/fault/): every allocation and every file
# operation of an export made to fail in turn (fault.h), and nothing lost
# in any. Included from tests/CMakeLists.txt.
#
#   fault.alloc    alloc_faults: each allocation of each case failed once
#                  (and a persistent-failure sweep in the sanitized build,
#                  where LeakSanitizer checks every case)
#   fault.io       io_faults: each file operation through the C API, as
#                  EIO, writes also as ENOSPC, short, and a disk filling
#   fault.cli_io   the same through the onnxexp command (onnxexp_faulty:
#                  the CLI with the fault hook armed from the environment)
#   fault.cli_alloc  each allocation of one command line using every
#                  option the command allocates for
#
# The cases are generated fixtures (fixtures.generate).

set(_fault_src ${CMAKE_CURRENT_LIST_DIR}/fault)
set(_fault_fixtures ${OXP_FIXTURES_DIR})
set(_fault_work ${CMAKE_BINARY_DIR}/fault-work)

# Both passes fail every allocation in turn (some 20 s in the plain
# build); the sanitized one, where LeakSanitizer checks each case, also
# sweeps persistent failure from every 10th point. ONNXEXP_FAULT_STEP > 1
# samples every k-th point of the plain pass instead, should the cases
# grow.
set(ONNXEXP_FAULT_STEP 1 CACHE STRING "fault.alloc in the plain build fails every k-th allocation")
if(ONNXEXP_SANITIZE)
  set(_fault_alloc_args --step 1 --persist-step 10)
else()
  set(_fault_alloc_args --step ${ONNXEXP_FAULT_STEP})
endif()

add_executable(alloc_faults ${_fault_src}/alloc_faults.c)
target_include_directories(alloc_faults PRIVATE ${OXP_CORE_INCLUDE_DIRS})
target_link_libraries(alloc_faults PRIVATE onnxexp_static)
add_test(NAME fault.alloc
  COMMAND alloc_faults ${_fault_fixtures} ${_fault_work}/alloc ${_fault_alloc_args})
set_tests_properties(fault.alloc PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED fixtures
                     LABELS fault)

add_executable(io_faults ${_fault_src}/io_faults.c)
target_include_directories(io_faults PRIVATE ${OXP_CORE_INCLUDE_DIRS})
target_link_libraries(io_faults PRIVATE onnxexp_static)
add_test(NAME fault.io COMMAND io_faults ${_fault_fixtures} ${_fault_work}/io)
set_tests_properties(fault.io PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED fixtures
                     LABELS fault)

# The command with the hook armed from the environment (build tree only).
add_executable(onnxexp_faulty ${_fault_src}/cli_faulty.c)
target_include_directories(onnxexp_faulty PRIVATE ${CMAKE_SOURCE_DIR}/src/cli)
target_link_libraries(onnxexp_faulty PRIVATE oxp_core)
find_program(ONNXEXP_FAULT_PYTHON NAMES python3)
if(ONNXEXP_PYTHON)
  set(ONNXEXP_FAULT_PYTHON ${ONNXEXP_PYTHON})
endif()
add_test(NAME fault.cli_io
  COMMAND ${ONNXEXP_FAULT_PYTHON} ${_fault_src}/cli_io.py --faulty $<TARGET_FILE:onnxexp_faulty>
          --fixtures ${_fault_fixtures} --work ${_fault_work}/cli_io)
set_tests_properties(fault.cli_io PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED fixtures
                     LABELS fault)
add_test(NAME fault.cli_alloc
  COMMAND ${ONNXEXP_FAULT_PYTHON} ${_fault_src}/cli_io.py --alloc --faulty $<TARGET_FILE:onnxexp_faulty>
          --fixtures ${_fault_fixtures} --work ${_fault_work}/cli_alloc)
set_tests_properties(fault.cli_alloc PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED fixtures
                     LABELS fault)
