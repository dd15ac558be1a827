# Fault injection (tests/fault/): every allocation and every file
# operation of an export made to fail in turn (fault.h), and nothing lost
# in any. Included from tests/CMakeLists.txt.
#
#   fault.alloc    alloc_faults: each allocation of each case failed once
#                  (every k-th in the plain build, all of them and a
#                  persistent-failure sweep in the sanitized one, where
#                  LeakSanitizer checks every run)
#   fault.io       io_faults: each file operation through the C API, as
#                  EIO, writes also as ENOSPC, short, and a disk filling
#   fault.cli_io   the same through the onnxexp command (onnxexp_faulty:
#                  the CLI with the fault hook armed from the environment)
#
# The cases are generated fixtures (fixtures.generate).

set(_fault_src ${CMAKE_CURRENT_LIST_DIR}/fault)
set(_fault_fixtures ${CMAKE_BINARY_DIR}/fixtures)
set(_fault_work ${CMAKE_BINARY_DIR}/fault-work)

# The sanitized pass covers every point; the plain pass samples, so that
# the suite adds well under a minute to it.
if(ONNXEXP_SANITIZE)
  set(_fault_alloc_args --step 1 --persist-step 5)
else()
  set(_fault_alloc_args --step 7)
endif()

add_executable(alloc_faults ${_fault_src}/alloc_faults.c)
target_include_directories(alloc_faults PRIVATE ${CMAKE_SOURCE_DIR}/src/export/internal)
target_link_libraries(alloc_faults PRIVATE onnxexp_static)
add_test(NAME fault.alloc
  COMMAND alloc_faults ${_fault_fixtures} ${_fault_work}/alloc ${_fault_alloc_args})
set_tests_properties(fault.alloc PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED fixtures
                     LABELS fault)

add_executable(io_faults ${_fault_src}/io_faults.c)
target_include_directories(io_faults PRIVATE ${CMAKE_SOURCE_DIR}/src/export/internal)
target_link_libraries(io_faults PRIVATE onnxexp_static)
add_test(NAME fault.io COMMAND io_faults ${_fault_fixtures} ${_fault_work}/io)
set_tests_properties(fault.io PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED fixtures
                     LABELS fault)
