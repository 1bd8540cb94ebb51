#include <CLI/CLI.hpp>

#include <cstdio>

#include "merlin/cli/cli_util.h"
#include "merlin/cli/command.h"
#include "merlin/core/spec/spec_loader.h"

namespace merlin::cli {
namespace {

struct ValidateArgs {
  std::string spec;
  std::vector<std::string> vars;
  bool strict = false;
};

int validate(const ValidateArgs& a) {
  auto vars = parse_vars(a.vars);
  if (a.spec.empty()) return report_error(Error::bad_input("a spec file is required (see --help)"));
  if (!vars) return report_error(vars.error());
  spec::LoadOptions lo;
  lo.vars = *vars;
  lo.strict_tokens = a.strict;
  auto loaded = spec::load_spec(a.spec, lo);
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
    return loaded.error().code == ErrorCode::kBadInput ? kExitBadInput : kExitFailed;
  }
  for (const auto& w : loaded->warnings) std::fprintf(stderr, "%s\n", w.str().c_str());
  std::printf("%s: ok (%zu steps, %zu parameters, %zu workers)\n", a.spec.c_str(),
              loaded->spec.steps.size(), loaded->spec.parameters.size(),
              loaded->spec.workers.size());
  return kExitOk;
}

}  // namespace

Command validate_command() {
  return {"validate", "Check a spec and report every problem, without running anything",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<ValidateArgs>();
            sub.add_option("spec", a->spec, "The study spec (YAML)");
            sub.add_option("--vars", a->vars, "Override env.variables: KEY=VALUE ...");
            sub.add_flag("--strict", a->strict,
                         "A $(TOKEN) that nothing defines is an error (exit 2), not a warning");
            return [a] {
              reclaim_spec(a->vars, a->spec);
              return validate(*a);
            };
          }};
}

}  // namespace merlin::cli
