#pragma once
/// One private rabbitmq-server per test suite (it takes ~4 s to start), skipped loudly when it
/// cannot start, and the settings that reach it.
#include <gtest/gtest.h>

#include <string>

#include "adapters/broker/amqp/amqp_connection.h"
#include "tests/fakes/rabbitmq_server.h"

namespace merlin::testing {

class RabbitFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new RabbitServer();
    why_ = server_->start();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    if (!why_.empty()) GTEST_SKIP() << "no RabbitMQ here: " << why_;
  }
  static AmqpSettings settings() {
    AmqpSettings s;
    s.port = server_->port();
    return s;
  }

  static inline RabbitServer* server_ = nullptr;
  static inline std::string why_;
};

}  // namespace merlin::testing
