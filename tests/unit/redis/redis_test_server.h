#pragma once
/// A fixture with a private redis-server and settings pointing at it, for the Redis-only tests.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "adapters/broker/redis/redis_settings.h"
#include "merlin/core/broker/task_message.h"
#include "tests/fakes/redis_server.h"

namespace merlin::testing {

/// The message for samples [lo, hi) of instance 0 (one sample by default).
inline TaskMessage sample_msg(SampleId lo, SampleId hi = 0) {
  TaskMessage m;
  m.instance = InstanceId{0};
  m.lo = lo;
  m.hi = hi == 0 ? lo + 1 : hi;
  return m;
}

/// SIGSTOP now, SIGCONT after `for_how_long` from another thread: the outage a test injects
/// (a sleep that makes the fault, not one that waits for something).
class Paused {
 public:
  Paused(RedisServer& server, std::chrono::milliseconds for_how_long) : server_(server) {
    server_.pause();
    resumer_ = std::thread([this, for_how_long] {
      std::this_thread::sleep_for(for_how_long);
      server_.resume();
    });
  }
  ~Paused() { resumer_.join(); }

 private:
  RedisServer& server_;
  std::thread resumer_;
};

class RedisFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto why = server_.start();
    if (!why.empty()) GTEST_SKIP() << why;
    settings_.port = server_.port();
    settings_.study_key = "unit";
    settings_.lease = std::chrono::milliseconds(200);
    settings_.reconnect_budget = std::chrono::milliseconds(10'000);
  }

  RedisServer server_;
  RedisSettings settings_;
};

}  // namespace merlin::testing
