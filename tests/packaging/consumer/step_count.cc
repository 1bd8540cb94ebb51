// A shared library built on merlin::core (as Python bindings or a plugin would be): the static
// library must be position-independent for this to link.
#include "step_count.h"

#include "merlin/core/spec/spec_loader.h"

int consumer_step_count(const char* spec_path) {
  auto loaded = merlin::spec::load_spec(spec_path);
  return loaded ? static_cast<int>(loaded->spec.steps.size()) : -1;
}
