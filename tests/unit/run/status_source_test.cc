// Where status and detailed-status read a broker study from when the broker configured now is
// not the one run.env records (issue #25 item 5): the recorded one when it can be reached, the
// task journals once the study finished, else a refusal naming both. In-process backends
// (tests/fakes/memory_backend.h) stand for the two servers.
#include "merlin/run/status_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "merlin/cli/backends.h"
#include "merlin/run/dist_study.h"
#include "merlin/run/worker_fleet.h"
#include "tests/fakes/fake_executor.h"
#include "tests/fakes/memory_backend.h"

namespace merlin::run {
namespace {
namespace fs = std::filesystem;

Result<BrokerLocation> parse_broker_url(std::string_view url) {
  return merlin::parse_broker_url(url, cli::broker_providers());
}

// A handle on a backend that lives elsewhere (the opener hands out owning pointers).
class BackendView : public Backend {
 public:
  explicit BackendView(Backend& b) : b_(b) {}
  BrokerKind kind() const override { return b_.kind(); }
  std::string location() const override { return b_.location(); }
  std::unique_ptr<Broker> broker(const std::string& k, const std::string& c,
                                 std::chrono::milliseconds l) override {
    return b_.broker(k, c, l);
  }
  std::unique_ptr<StateStore> store(const std::string& k) override { return b_.store(k); }
  StudyRegistry& studies() override { return b_.studies(); }
  WorkerRegistry& workers() override { return b_.workers(); }
  StopChannel& stops() override { return b_.stops(); }
  Result<std::string> server_version() override { return b_.server_version(); }

 private:
  Backend& b_;
};

class StatusSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("status_source_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "samples.csv") << "1\n2\n3\n4\n";
    std::ofstream(dir_ / "s.yaml") << R"(description: {name: moved, description: a study}
env:
  variables:
    OUTPUT_PATH: ./out
study:
  - name: sim
    run:
      cmd: echo $(X)
merlin:
  samples:
    file: $(SPECROOT)/samples.csv
    column_labels: [X]
)";
    PrepareOptions po;
    po.spec_path = (dir_ / "s.yaml").string();
    po.epoch = 1'700'000'000;
    po.cwd = dir_.string();
    auto s = prepare_study(po);
    ASSERT_TRUE(s.ok()) << s.error().message;
    workspace_ = (*s)->tokens.workspace;
    a_loc_ = *parse_broker_url("redis://127.0.0.1:6431/0");
    b_loc_ = *parse_broker_url("redis://127.0.0.1:6379/0");
    a_.set_location(a_loc_.display());
    b_.set_location(b_loc_.display());
    ASSERT_TRUE(enqueue_study(**s, a_).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  void serve_on_a() {
    auto fake = std::make_shared<testing::FakeExecutor>();
    FleetOptions o;
    o.given.exit_when_done = true;
    o.output_path = (dir_ / "out").string();
    o.progress_every = std::chrono::milliseconds(0);
    o.executor = [fake](std::chrono::milliseconds) -> std::unique_ptr<StepExecutor> {
      struct Shared : StepExecutor {
        std::shared_ptr<testing::FakeExecutor> f;
        Result<void> prepare(const RenderedTask& t) override { return f->prepare(t); }
        Result<ExecResult> run(const RenderedTask& t) override { return f->run(t); }
        Result<void> mark_finished(const RenderedTask& t) override { return f->mark_finished(t); }
      };
      auto e = std::make_unique<Shared>();
      e->f = fake;
      return e;
    };
    run_fleet(a_, "moved", {WorkerPlan{"w", {"merlin"}, 2, "here.1.w"}}, o);
  }

  // A opens when it is asked for (reachable) and `a_up_`; B always opens, empty.
  BackendOpener opener() {
    return [this](const BrokerLocation& l) -> Result<std::unique_ptr<Backend>> {
      if (l.display() == b_loc_.display()) return std::unique_ptr<Backend>(new BackendView(b_));
      if (!a_up_) return Error::unavailable("redis 127.0.0.1:6431: Connection refused");
      return std::unique_ptr<Backend>(new BackendView(a_));
    };
  }
  RunRecord record() {
    auto r = read_run_record(workspace_);
    EXPECT_TRUE(r.ok());
    return *r;
  }

  fs::path dir_;
  std::string workspace_;
  BrokerLocation a_loc_, b_loc_;
  testing::MemoryBackend a_, b_;
  bool a_up_ = true;
};

TEST_F(StatusSourceTest, TheRecordedBrokerIsUsedWhenItIsTheConfiguredOne) {
  auto s = open_status_source(workspace_, record(), a_loc_, cli::broker_providers(), opener());
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_NE(s->backend, nullptr);
  EXPECT_TRUE(s->note.empty());
}

TEST_F(StatusSourceTest, TheSameServerAsAnotherAclUserIsTheRecordedBroker) {
  RunRecord r = record();
  r.broker_at = "redis://submit:***@127.0.0.1:6431/0";
  auto worker = parse_broker_url("redis://worker:pw@127.0.0.1:6431/0");
  ASSERT_TRUE(worker.ok());
  auto s = open_status_source(workspace_, r, *worker, cli::broker_providers(), opener());
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_NE(s->backend, nullptr);
  EXPECT_TRUE(s->note.empty()) << "the configured broker, with its own credentials";
  EXPECT_EQ(s->loc.username, "worker");
}

TEST_F(StatusSourceTest, TheRecordedBrokerIsReadWhenAnotherIsConfiguredAndItCanBeReached) {
  auto s = open_status_source(workspace_, record(), b_loc_, cli::broker_providers(), opener());
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_NE(s->backend, nullptr);
  EXPECT_EQ(s->loc.display(), "redis://127.0.0.1:6431/0");
  EXPECT_EQ(s->loc.retry_budget, std::chrono::milliseconds(0)) << "a status does not wait";
  EXPECT_NE(s->note.find("queued on redis://127.0.0.1:6431/0, not on redis://127.0.0.1:6379/0"),
            std::string::npos)
      << s->note;
}

TEST_F(StatusSourceTest, AFinishedStudyOnAnUnreachableBrokerIsReadFromItsJournals) {
  serve_on_a();
  ASSERT_TRUE(mark_study_finished(workspace_).ok());
  a_up_ = false;
  auto s = open_status_source(workspace_, record(), b_loc_, cli::broker_providers(), opener());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->backend, nullptr) << "the journals, not B (which never saw the study)";
  EXPECT_NE(s->note.find("finished on redis://127.0.0.1:6431/0"), std::string::npos) << s->note;
  EXPECT_NE(s->note.find("redis://127.0.0.1:6379/0"), std::string::npos) << s->note;

  auto at = open_for_status(workspace_, dir_.string(), "");
  ASSERT_TRUE(at.ok()) << at.error().message;
  auto p = task_journals_progress(*at->study);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].total, 4u);
  EXPECT_EQ((*p)[0].done, 4u) << "every commit is in the worker's journal";
}

TEST_F(StatusSourceTest, AStudyQueuedAgainAfterItFinishedIsNoLongerRecordedFinished) {
  ASSERT_TRUE(mark_study_finished(workspace_).ok());
  ASSERT_TRUE(record().finished);
  ASSERT_TRUE(record_broker(workspace_, "redis", b_loc_.display()).ok());  // a restart on B
  EXPECT_FALSE(record().finished) << "its journals no longer tell the whole study";
  EXPECT_EQ(record().broker_at, b_loc_.display());
}

TEST_F(StatusSourceTest, AnUnfinishedStudyOnAnUnreachableBrokerIsRefusedNamingBoth) {
  a_up_ = false;
  auto s = open_status_source(workspace_, record(), b_loc_, cli::broker_providers(), opener());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kRuntime);
  const std::string& m = s.error().message;
  EXPECT_NE(m.find("was queued on redis://127.0.0.1:6431/0, but the broker configured now is "
                   "redis://127.0.0.1:6379/0"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("Connection refused"), std::string::npos) << m;
  EXPECT_NE(m.find("--broker URL"), std::string::npos) << m;
}

TEST_F(StatusSourceTest, ARecordedPasswordIsNotThereSoItsBrokerIsNotTried) {
  RunRecord r = record();
  r.broker_at = "redis://:***@127.0.0.1:6431/0";
  auto s = open_status_source(workspace_, r, b_loc_, cli::broker_providers(), opener());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kRuntime);
  EXPECT_NE(s.error().message.find("needs a password, which run.env does not keep"),
            std::string::npos)
      << s.error().message;
}

TEST_F(StatusSourceTest, TheConfiguredBrokerWithoutTheStudyIsNeverReadAsAllInitialized) {
  RunRecord r = record();
  r.broker_at = b_loc_.display();  // recorded as B, but B has no record of it
  auto s = open_status_source(workspace_, r, b_loc_, cli::broker_providers(), opener());
  ASSERT_FALSE(s.ok()) << "not finished: refused, with restart named";
  EXPECT_EQ(s.error().code, ErrorCode::kRuntime);
  EXPECT_NE(s.error().message.find("is not in the broker at redis://127.0.0.1:6379/0"),
            std::string::npos);
  r.finished = true;
  s = open_status_source(workspace_, r, b_loc_, cli::broker_providers(), opener());
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->backend, nullptr) << "finished: from the journals";
}

}  // namespace
}  // namespace merlin::run
