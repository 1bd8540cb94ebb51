#include "merlin/core/study/resource_tokens.h"

#include <gtest/gtest.h>

#include "merlin/core/spec/spec_loader.h"

namespace merlin {
namespace {

// Merlin's feature_demo names its worker $(WORKER_NAME) and a queue $(VERIFY_QUEUE); its
// null_spec sets --concurrency $(CONC); a batch block takes $(PARTITION).
constexpr const char* kSpec = R"Y(description: {name: res, description: d}
batch: {type: slurm, queue: $(PARTITION), walltime: $(LIMIT)}
env:
  variables:
    WORKER_NAME: demo_worker
    VERIFY_QUEUE: verify_q
    CONC: 3
    PARTITION: pdebug
    LIMIT: "00:10:00"
    HOST: quartz
study:
  - name: verify
    run: {cmd: echo $(UNDEFINED_HERE), task_queue: $(VERIFY_QUEUE)}
merlin:
  resources:
    workers:
      $(WORKER_NAME):
        args: -l INFO --concurrency $(CONC)
        machines: [$(HOST)]
        batch: {type: slurm, bank: $(PARTITION)_bank}
)Y";

TEST(ResourceTokens, VariablesReachQueuesWorkersAndBatchBlocks) {
  auto loaded = spec::parse_spec(kSpec, "spec.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto tokens = resolve_study_tokens(loaded->spec, {"20260101-000000", "/tmp", "", "", ""});
  ASSERT_TRUE(tokens.ok()) << tokens.error().message;
  auto& spec = loaded->spec;
  substitute_resource_tokens(spec, *tokens);
  EXPECT_EQ(spec.steps[0].run.task_queue, "verify_q");
  EXPECT_EQ(spec.steps[0].run.cmd.value, "echo $(UNDEFINED_HERE)") << "commands are not touched";
  ASSERT_EQ(spec.workers.size(), 1u);
  EXPECT_EQ(spec.workers[0].name, "demo_worker");
  EXPECT_EQ(spec.workers[0].args, "-l INFO --concurrency 3");
  EXPECT_EQ(spec.workers[0].machines, std::vector<std::string>{"quartz"});
  ASSERT_TRUE(spec.workers[0].batch.has_value());
  EXPECT_EQ(spec.workers[0].batch->bank, "pdebug_bank");
  EXPECT_EQ(spec.batch.queue, "pdebug");
  EXPECT_EQ(spec.batch.walltime, "00:10:00");
}

}  // namespace
}  // namespace merlin
