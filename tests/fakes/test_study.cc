#include "tests/fakes/test_study.h"

#include <gtest/gtest.h>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::testing {

InstanceId TestStudy::instance(const std::string& name, std::uint32_t combo) const {
  for (const auto& node : graph->steps())
    if (node.name == name) return InstanceId{node.first_instance.v + combo};
  ADD_FAILURE() << "no step named " << name;
  return InstanceId{0};
}

std::vector<std::uint64_t> TestStudy::counts() const {
  std::vector<std::uint64_t> out;
  for (const auto& inst : graph->instances()) out.push_back(inst.count);
  return out;
}

std::unique_ptr<TestStudy> make_study(std::string_view yaml, std::uint64_t samples,
                                      const std::string& workspace) {
  auto study = std::make_unique<TestStudy>();
  auto loaded = spec::parse_spec(yaml, "spec.yaml");
  if (!loaded) {
    ADD_FAILURE() << "spec does not parse:\n" << loaded.error().message;
    return nullptr;
  }
  study->spec = std::move(loaded->spec);
  auto tokens = resolve_study_tokens(study->spec, {"20240102-030405", "/base", workspace, "", ""});
  if (!tokens) {
    ADD_FAILURE() << "tokens do not resolve: " << tokens.error().message;
    return nullptr;
  }
  study->tokens = std::move(*tokens);
  if (study->spec.samples)
    study->table = std::make_unique<FakeSampleTable>(samples, study->spec.samples->column_labels);
  auto graph = StudyGraph::build(study->spec, study->tokens, samples);
  if (!graph) {
    ADD_FAILURE() << "graph does not build: " << graph.error().message;
    return nullptr;
  }
  study->graph = std::make_unique<StudyGraph>(std::move(*graph));
  study->renderer = std::make_unique<TaskRenderer>(*study->graph, study->table.get());
  return study;
}

}  // namespace merlin::testing
