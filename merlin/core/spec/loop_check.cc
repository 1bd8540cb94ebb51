// `loop` blocks (docs/fanout.md): back_to names an ancestor, and bodies do not overlap.
#include <map>

#include "merlin/core/spec/did_you_mean.h"
#include "merlin/core/spec/loop_body.h"
#include "merlin/core/spec/spec_validator.h"

namespace merlin::spec {

void check_loops(const StudySpec& spec, DiagnosticList& diags) {
  std::vector<std::string> names;
  for (const auto& s : spec.steps) names.push_back(s.name);
  std::map<std::size_t, std::string> owner;  // body step -> the step whose loop holds it
  for (std::size_t i = 0; i < spec.steps.size(); ++i) {
    const Step& s = spec.steps[i];
    if (!s.run.loop || s.run.loop->back_to.value.empty()) continue;
    const Text& back = s.run.loop->back_to;
    if (spec.find_step(back.value) == nullptr) {
      diags.error(back.where, "'back_to' of the loop in step '" + s.name +
                                  "' names unknown step '" + back.value + "'" +
                                  suggestion_suffix(back.value, names));
      continue;
    }
    auto body = loop_body(spec, i);
    if (!body) {
      diags.error(back.where, "'back_to' of the loop in step '" + s.name + "' is step '" +
                                  back.value + "', which '" + s.name +
                                  "' does not depend on: a loop runs again the steps from "
                                  "back_to to the step that decides");
      continue;
    }
    for (std::size_t b : *body) {
      auto [it, fresh] = owner.emplace(b, s.name);
      if (!fresh)
        diags.error(s.run.loop->where, "the loop in step '" + s.name + "' and the loop in step '" +
                                           it->second + "' both hold step '" + spec.steps[b].name +
                                           "'; loops may not overlap");
    }
  }
}

}  // namespace merlin::spec
