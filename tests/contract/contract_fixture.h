#pragma once
/// The fixture of the contract suite: every TEST_P runs once per backend ("local", "redis")
/// and must give the same answers on each.
#include <gtest/gtest.h>

#include "tests/contract/backend.h"

namespace merlin::testing {

class Contract : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    backend_ = make_backend(GetParam());
    auto why = backend_->setup();
    if (!why.empty()) GTEST_SKIP() << "backend " << GetParam() << " unavailable: " << why;
  }

  static TaskMessage msg(std::uint32_t instance, SampleId lo = 0) {
    TaskMessage m;
    m.instance = InstanceId{instance};
    m.lo = lo;
    m.hi = lo + 1;
    return m;
  }
  /// Reserves without waiting; a failed reservation fails the test and gives an empty Delivery.
  static std::optional<Delivery> take(
      Broker& b, const std::vector<std::string>& queues = {"q"},
      std::chrono::milliseconds wait = std::chrono::milliseconds(0)) {
    auto d = b.reserve(queues, wait);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().message);
    return d.ok() ? *d : std::nullopt;
  }
  static std::uint64_t pending(Broker& b, const std::vector<std::string>& queues) {
    auto p = b.pending(queues);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    return p.ok() ? *p : 0;
  }

  std::unique_ptr<Backend> backend_;
};

}  // namespace merlin::testing
