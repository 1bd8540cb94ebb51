// LeanExecutor: per task only its directory; the script from memory; output in per-process
// logs that the index points into exactly.
#include "workers/lean_executor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "merlin/core/util/files.h"
#include "merlin/core/workspace/log_index.h"
#include "tests/fakes/test_study.h"
#include "workers/process_executor.h"

namespace merlin {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSpec = R"yaml(description:
  name: lean
study:
  - name: sim
    run:
      cmd: |
        echo "x=$(X) sample=$(MERLIN_SAMPLE_ID)"
        echo 'kept $(X)'
        echo "to err $X" >&2
        printf no-newline
        exit $(CODE)
  - name: py
    run:
      cmd: |
        import os
        print("py", os.environ["MERLIN_SAMPLE_ID"], "$(X)")
      shell: /usr/bin/env python3
merlin:
  samples:
    column_labels: [X, CODE]
    file: x.csv
  layout: lean
)yaml";

class LeanExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    ws_ = fs::path(::testing::TempDir()) / (std::string("lean_executor_") + info->name());
    fs::remove_all(ws_);
    fs::create_directories(ws_);
    study_ = testing::make_study(kSpec, 30, ws_.string());
    ASSERT_TRUE(study_);
    // FakeSampleTable cells are "<label><row>": X is "X3", CODE "CODE3"; CODE needs a number.
    LeanExecutorOptions o;
    o.logs.writer = "host.1.0";
    o.logs.capture_dir = ws_.string();
    ex_ = std::make_unique<LeanExecutor>(std::make_unique<ProcessExecutor>(), *study_->renderer, o);
  }
  void TearDown() override { fs::remove_all(ws_); }

  RenderedTask render(const std::string& step, std::uint64_t sample, std::uint32_t attempt = 1) {
    RenderedTask t = study_->renderer->render(study_->instance(step), sample, TaskKind::kCmd);
    t.attempt = attempt - 1;  // RenderedTask counts from 0, the log index from 1
    // The fake table's CODE cell is not a number: exit with the sample's parity instead.
    auto at = t.script_text.find("exit CODE");
    if (at != std::string::npos)
      t.script_text.replace(at, 9 + std::to_string(sample).size(),
                            "exit " + std::to_string(sample % 2));
    return t;
  }
  std::string slice(const std::string& path, std::uint64_t off, std::uint64_t len) {
    auto text = files::read(path);
    return text ? text->substr(off, len) : "(unreadable)";
  }

  fs::path ws_;
  std::unique_ptr<testing::TestStudy> study_;
  std::unique_ptr<LeanExecutor> ex_;
};

TEST_F(LeanExecutorTest, TheTaskDirectoryHoldsNothingOfMerlinsAndTheIndexFindsEachOutput) {
  for (std::uint64_t s : {0, 1, 2}) {
    auto r = ex_->run(render("sim", s));
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->exit_code, static_cast<int>(s % 2));
    auto m = ex_->mark_finished(render("sim", s));
    ASSERT_TRUE(m.ok());
  }
  const RenderedTask t = render("sim", 1);
  ASSERT_TRUE(fs::is_directory(t.dir));
  EXPECT_TRUE(fs::is_empty(t.dir)) << "no script, .out, .err or MERLIN_FINISHED per task";

  const std::string inst = study_->renderer->instance_dir(study_->instance("sim"));
  auto found = find_log_attempts(log_dir_of(inst), 1);
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_EQ(found->size(), 1u);
  const auto& a = found->front();
  EXPECT_EQ(a.writer, "host.1.0");
  EXPECT_EQ(a.record.exit_code, 1);
  // $(X) substituted (even in single quotes, as Merlin does); $X from the environment.
  EXPECT_EQ(slice(a.out_path, a.record.out_offset, a.record.out_length),
            "x=X1 sample=1\nkept X1\nno-newline");
  EXPECT_EQ(slice(a.err_path, a.record.err_offset, a.record.err_length), "to err X1\n");
  auto whole = files::read(a.out_path);
  ASSERT_TRUE(whole.ok());
  EXPECT_NE(whole->find("==== merlin: sample 1 attempt 1 exit 1 "), std::string::npos);
}

TEST_F(LeanExecutorTest, TheInstanceScriptIsWrittenOnceWithSampleTokensLeftForTheReader) {
  ASSERT_TRUE(ex_->run(render("sim", 0)).ok());
  auto text = files::read(study_->renderer->instance_dir(study_->instance("sim")) + "/sim.sh");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("echo \"x=$(X) sample=$(MERLIN_SAMPLE_ID)\""), std::string::npos);
  EXPECT_EQ(text->rfind("#!/bin/bash\n\n", 0), 0u);
}

TEST_F(LeanExecutorTest, AShellThatReadsAScriptPathRunsTheScriptFromMemory) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no python3";
  auto r = ex_->run(render("py", 4));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
  auto found =
      find_log_attempts(log_dir_of(study_->renderer->instance_dir(study_->instance("py"))), 4);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  const auto& a = found->front();
  EXPECT_EQ(slice(a.out_path, a.record.out_offset, a.record.out_length), "py 4 X4\n");
}

TEST_F(LeanExecutorTest, RetriesAreFurtherAttemptsOfTheSameSample) {
  ASSERT_TRUE(ex_->run(render("sim", 3, 1)).ok());
  ASSERT_TRUE(ex_->run(render("sim", 3, 2)).ok());
  auto found =
      find_log_attempts(log_dir_of(study_->renderer->instance_dir(study_->instance("sim"))), 3);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ((*found)[0].record.attempt, 1u);
  EXPECT_EQ((*found)[1].record.attempt, 2u);
  EXPECT_LT((*found)[0].record.out_offset, (*found)[1].record.out_offset);
}

TEST_F(LeanExecutorTest, ConcurrentSlotsKeepEachSamplesBytesTogether) {
  std::vector<std::thread> slots;
  for (int k = 0; k < 4; ++k)
    slots.emplace_back([&, k] {
      for (std::uint64_t s = k; s < 24; s += 4) EXPECT_TRUE(ex_->run(render("sim", s)).ok());
    });
  for (auto& t : slots) t.join();
  const std::string logs = log_dir_of(study_->renderer->instance_dir(study_->instance("sim")));
  for (std::uint64_t s = 0; s < 24; ++s) {
    auto found = find_log_attempts(logs, s);
    ASSERT_TRUE(found.ok());
    ASSERT_EQ(found->size(), 1u) << "sample " << s;
    const auto& a = found->front();
    EXPECT_EQ(slice(a.out_path, a.record.out_offset, a.record.out_length),
              "x=X" + std::to_string(s) + " sample=" + std::to_string(s) + "\nkept X" +
                  std::to_string(s) + "\nno-newline");
  }
}

TEST_F(LeanExecutorTest, LargeOutputIsAppendedWholeAndTheNextTaskStartsFromAnEmptyCapture) {
  auto big = render("sim", 8);
  big.script_text = "#!/bin/bash\n\nhead -c 24000000 /dev/zero | tr '\\0' a\n";
  ASSERT_TRUE(ex_->run(big).ok());
  auto small = render("sim", 9);  // the same slot's capture, reused
  ASSERT_TRUE(ex_->run(small).ok());
  const std::string logs = log_dir_of(study_->renderer->instance_dir(study_->instance("sim")));
  auto b = find_log_attempts(logs, 8);
  auto s = find_log_attempts(logs, 9);
  ASSERT_TRUE(b.ok() && s.ok());
  ASSERT_EQ(b->size(), 1u);
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ(b->front().record.out_length, 24'000'000u);
  EXPECT_EQ(slice(b->front().out_path, b->front().record.out_offset + 23'999'990, 10),
            "aaaaaaaaaa");
  EXPECT_EQ(slice(s->front().out_path, s->front().record.out_offset, s->front().record.out_length),
            "x=X9 sample=9\nkept X9\nno-newline");
}

TEST_F(LeanExecutorTest, FinishedMarkersOnlyWhenAskedFor) {
  LeanExecutorOptions o;
  o.finished_markers = true;
  o.logs.writer = "host.1.1";
  o.logs.capture_dir = ws_.string();
  LeanExecutor marking(std::make_unique<ProcessExecutor>(), *study_->renderer, o);
  auto t = render("sim", 0);
  ASSERT_TRUE(marking.run(t).ok());
  ASSERT_TRUE(marking.mark_finished(t).ok());
  EXPECT_TRUE(fs::exists(t.dir + "/MERLIN_FINISHED"));
}

}  // namespace
}  // namespace merlin
