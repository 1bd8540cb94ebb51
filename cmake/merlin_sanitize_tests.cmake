# The sanitizer tests (docs/sanitizers.md), included from the test block of CMakeLists.txt.
if(NOT MERLIN_SANITIZE)
  # sanitize.ci: the --ci subsets of tests/sanitize/run.sh asan and tsan, in their own build
  # directories under this one. MERLIN_TEST_SANITIZE=0 skips it. TIMEOUT: from the cold times
  # measured in parts on 2 shared cores (docs/sanitizers.md), with room: 2,400-2,770 s in CI
  # runs, over 3,600 s once when deb_package's Release build shared the cores for 28 min.
  add_test(NAME sanitize.ci
    COMMAND bash ${PROJECT_SOURCE_DIR}/tests/sanitize/ci.sh ${PROJECT_BINARY_DIR}/sanitize)
  # COST: started first, like fuzz.bounded, so that it overlaps the rest of the suite.
  set_tests_properties(sanitize.ci PROPERTIES TIMEOUT 4500 SKIP_RETURN_CODE 77 COST 20000)
else()
  # Sanitized programs run several times slower (ASan at -O0: an integration test takes 3 to 30
  # times its usual time on 2 loaded cores): the integration tests get three times their timeout.
  get_property(merlin_script_tests DIRECTORY PROPERTY TESTS)
  foreach(t ${merlin_script_tests})
    if(t MATCHES "^integration\\.")
      get_test_property(${t} TIMEOUT old)
      math(EXPR new "${old} * 3")
      set_tests_properties(${t} PROPERTIES TIMEOUT ${new})
    endif()
  endforeach()
endif()
if(MERLIN_SANITIZE STREQUAL "thread")
  # The worker unit tests alone (tests/unit/workers), for the TSan --ci run: a third of
  # merlin_tests' compile. Their ctest names are prefixed with workers. so that they do not
  # collide with the same tests in merlin_tests.
  file(GLOB MERLIN_WORKER_TEST_SOURCES CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/tests/unit/workers/*.cc ${PROJECT_SOURCE_DIR}/tests/fakes/fake_executor.cc
    ${PROJECT_SOURCE_DIR}/tests/fakes/test_study.cc)
  add_executable(merlin_worker_tests ${MERLIN_WORKER_TEST_SOURCES})
  target_link_libraries(merlin_worker_tests PRIVATE merlin_run merlin_workers merlin_core GTest::gtest GTest::gtest_main)
  target_compile_definitions(merlin_worker_tests PRIVATE
    MERLIN_SOURCE_DIR="${PROJECT_SOURCE_DIR}" MERLIN_BINARY="$<TARGET_FILE:merlin>")
  add_dependencies(merlin_worker_tests merlin)
  gtest_discover_tests(merlin_worker_tests TEST_PREFIX "workers." DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 300)
endif()
