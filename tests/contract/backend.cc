#include "tests/contract/backend.h"

#include "adapters/broker/local/local_broker.h"
#include "adapters/broker/local/local_state_store.h"

#if MERLIN_HAVE_RABBITMQ
#include "adapters/broker/amqp/amqp_backend.h"
#include "adapters/broker/amqp/amqp_broker.h"
#endif
#include "adapters/broker/redis/redis_backend.h"
#include "adapters/broker/redis/redis_broker.h"
#include "adapters/broker/redis/redis_reservations.h"
#include "adapters/broker/redis/redis_connection.h"
#include "adapters/broker/redis/redis_purge.h"
#include "adapters/broker/redis/redis_state_store.h"
#include "tests/fakes/redis_progress.h"
#include "tests/fakes/rabbitmq_server.h"
#include "tests/fakes/redis_server.h"

namespace merlin::testing {
namespace {

class LocalBackend : public Backend {
 public:
  std::string setup() override { return ""; }
  std::shared_ptr<Broker> broker(const std::string&) override {
    if (!broker_) broker_ = std::make_shared<LocalBroker>();
    return broker_;
  }
  std::shared_ptr<StateStore> store(const std::vector<std::uint64_t>& counts) override {
    if (!store_) store_ = std::make_shared<LocalStateStore>(counts);
    return store_;
  }
  std::uint64_t purge() override { return 0; }
  bool has_purge() const override { return false; }
  bool has_leases() const override { return false; }
  bool inject_raw(const std::string&, const std::string&) override { return false; }

 private:
  std::shared_ptr<LocalBroker> broker_;
  std::shared_ptr<LocalStateStore> store_;
};

class RedisBackend : public Backend {
 public:
  std::string setup() override {
    auto why = server_.start();
    if (!why.empty()) return why;
    static int studies = 0;  // a fresh namespace per test, as several studies would share
    settings_.port = server_.port();
    settings_.study_key = "contract" + std::to_string(++studies);
    settings_.lease = lease();
    settings_.reconnect_budget = std::chrono::milliseconds(5000);
    return "";
  }
  std::shared_ptr<Broker> broker(const std::string& consumer) override {
    auto s = settings_;
    s.consumer = consumer;
    return std::make_shared<RedisBroker>(s);
  }
  std::shared_ptr<StateStore> store(const std::vector<std::uint64_t>& counts) override {
    auto s = std::make_shared<RedisStateStore>(settings_);
    auto r = init_progress(s->settings(), counts);
    return r ? s : nullptr;
  }
  std::uint64_t purge() override {
    auto r = purge_study(settings_);
    return r ? *r : 0;
  }
  bool has_purge() const override { return true; }
  bool has_leases() const override { return true; }
  bool inject_raw(const std::string& queue, const std::string& text) override {
    auto c = RedisConnection::open(settings_);
    if (!c) return false;
    auto r = (*c)->command({"XADD", RedisKeys(settings_.study_key).queue(queue), "*", "m", text});
    return r.ok();
  }

 private:
  RedisServer server_;
  RedisSettings settings_;
};

#if MERLIN_HAVE_RABBITMQ
// RabbitMQ for the queues, a Redis for progress and reservations, as `merlin` wires them. One
// RabbitMQ for the whole suite (it takes seconds to start); a fresh study per test.
class RabbitBackend : public Backend {
 public:
  std::string setup() override {
    static RabbitServer server;  // stopped when the test process exits
    static RabbitServer* rabbit = &server;
    static std::string rabbit_why = rabbit->start();
    if (!rabbit_why.empty()) return rabbit_why;
    auto why = redis_.start();
    if (!why.empty()) return why;
    static int studies = 0;
    study_ = "contract" + std::to_string(++studies);
    amqp_.port = rabbit->port();
    results_.port = redis_.port();
    results_.study_key = study_;
    results_.reconnect_budget = std::chrono::milliseconds(5000);
    return "";
  }
  std::shared_ptr<Broker> broker(const std::string& consumer) override {
    return std::make_shared<AmqpBroker>(
        amqp_, AmqpBrokerOptions{study_, consumer, lease(), std::chrono::milliseconds(5000)},
        std::make_unique<RedisReservations>(results_));
  }
  std::shared_ptr<StateStore> store(const std::vector<std::uint64_t>& counts) override {
    auto s = std::make_shared<RedisStateStore>(results_);
    auto r = init_progress(s->settings(), counts);
    return r ? s : nullptr;
  }
  std::uint64_t purge() override {
    RedisSettings results = results_;
    AmqpBackend backend(amqp_, std::chrono::milliseconds(5000),
                        std::make_unique<merlin::RedisBackend>(results),
                        [results](const std::string& study) {
                          RedisSettings s = results;
                          s.study_key = study;
                          return std::make_unique<RedisReservations>(s);
                        });
    auto r = backend.studies().forget(study_);
    return r ? *r : 0;
  }
  bool has_purge() const override { return true; }
  bool has_leases() const override { return true; }
  bool inject_raw(const std::string& queue, const std::string& text) override {
    AmqpBroker b(amqp_, AmqpBrokerOptions{study_, "raw"}, std::make_unique<RedisReservations>(results_));
    return b.publish_raw(queue, text).ok();
  }

 private:
  RedisServer redis_;
  AmqpSettings amqp_;
  RedisSettings results_;
  std::string study_;
};
#endif  // MERLIN_HAVE_RABBITMQ

}  // namespace

std::unique_ptr<Backend> make_backend(const std::string& name) {
#if MERLIN_HAVE_RABBITMQ
  if (name == "rabbitmq") return std::make_unique<RabbitBackend>();
#endif
  if (name == "redis") return std::make_unique<RedisBackend>();
  return std::make_unique<LocalBackend>();
}

std::vector<std::string> backend_names() {
#if MERLIN_HAVE_RABBITMQ
  return {"local", "redis", "rabbitmq"};
#else
  return {"local", "redis"};  // built with MERLIN_WITH_RABBITMQ=OFF
#endif
}

}  // namespace merlin::testing
