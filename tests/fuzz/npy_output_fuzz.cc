// libFuzzer target: merlin::fuzz::npy_output (tests/fuzz/fuzz_entries.h); docs/fuzzing.md.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  merlin::fuzz::init_fuzzer_process();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  merlin::fuzz::npy_output({reinterpret_cast<const char*>(data), size});
  return 0;
}
