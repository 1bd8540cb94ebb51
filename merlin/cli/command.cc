#include "merlin/cli/command.h"

#include <cstdio>

namespace merlin::cli {

int report_error(const Error& e) {
  std::fprintf(stderr, "merlin: %s\n", e.message.c_str());
  return exit_code_of(e);
}

}  // namespace merlin::cli
