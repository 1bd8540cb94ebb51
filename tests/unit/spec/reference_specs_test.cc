// Every specs/reference/*.yaml is a valid spec: it loads with no error and no warning.
#include <gtest/gtest.h>

#include <filesystem>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::spec {
namespace {
namespace fs = std::filesystem;

TEST(SpecReferenceSpecs, EachLoadsWithoutErrorsOrWarnings) {
  const fs::path dir = fs::path(MERLIN_SOURCE_DIR) / "specs" / "reference";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++count;
    SCOPED_TRACE(entry.path().filename().string());
    auto r = load_spec(entry.path().string());
    ASSERT_TRUE(r.ok()) << r.error().message;
    for (const auto& w : r->warnings) ADD_FAILURE() << w.str();
    EXPECT_FALSE(r->spec.steps.empty());
    EXPECT_FALSE(r->spec.workers.empty());
  }
  EXPECT_GE(count, 11);
}

TEST(SpecReferenceSpecs, FeaturesReadAsDocumented) {
  const fs::path dir = fs::path(MERLIN_SOURCE_DIR) / "specs" / "reference";
  auto load = [&](const char* name) {
    auto r = load_spec((dir / name).string());
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? std::move(r).value().spec : StudySpec{};
  };
  EXPECT_EQ(load("env_variables.yaml").variables.at(3).value, "one two three");
  EXPECT_EQ(load("anchors_merge_keys.yaml").steps.at(1).run.max_retries, 1);
  EXPECT_EQ(load("anchors_merge_keys.yaml").steps.at(0).run.shell, "/bin/sh");
  EXPECT_EQ(load("workers_args.yaml").workers.at(0).args, "-l INFO --concurrency 2");
  EXPECT_EQ(load("maestro_plain.yaml").workers.at(0).name, "default_worker");
  EXPECT_EQ(load("level_max_dirs.yaml").samples->level_max_dirs, 3);
  {
    const auto staged = load("staging_scratch.yaml").steps.at(0).run;
    ASSERT_TRUE(staged.scratch.has_value());
    EXPECT_EQ(staged.scratch->value, "auto");
    ASSERT_EQ(staged.stage_out.size(), 2u);
    EXPECT_EQ(staged.stage_out[1].value, "*.npy");
    ASSERT_EQ(staged.stage_in.size(), 1u);
    EXPECT_EQ(staged.stage_in[0].value, "$(SPECROOT)/samples.csv");
  }
  EXPECT_EQ(load("batch_slurm_launcher.yaml").batch.type, "slurm");
  EXPECT_EQ(load("funnel_depends.yaml").steps.at(1).run.depends.at(0).value, "sim_*");
  EXPECT_EQ(load("parameters_cartesian.yaml").parameters.at(1).values.size(), 6u);
}

}  // namespace
}  // namespace merlin::spec
