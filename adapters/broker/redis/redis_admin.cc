#include "adapters/broker/redis/redis_admin.h"

#include <chrono>

#include "adapters/broker/redis/redis_connection.h"

namespace merlin {

RedisAdmin::RedisAdmin(std::string host, int port, std::string password)
    : host_(std::move(host)), port_(port), password_(std::move(password)) {}

RedisAdmin::~RedisAdmin() = default;

Result<RedisConnection*> RedisAdmin::connection() {
  if (conn_) return conn_.get();
  RedisSettings s;
  s.host = host_;
  s.port = port_;
  s.password = password_;
  s.connect_timeout = std::chrono::milliseconds(1'000);
  s.command_timeout = std::chrono::milliseconds(5'000);
  s.reconnect_budget = std::chrono::milliseconds(0);  // the caller polls with its own deadline
  auto c = RedisConnection::open(s);
  if (!c) return c.error();
  conn_ = std::move(*c);
  return conn_.get();
}

Result<std::string> RedisAdmin::info() {
  auto c = connection();
  if (!c) return c.error();
  auto r = (*c)->command({"INFO"});
  if (!r) {
    conn_.reset();
    return r.error();
  }
  return r->text();
}

Result<void> RedisAdmin::shutdown_save() {
  auto c = connection();
  if (!c) return c.error();
  auto r = (*c)->command({"SHUTDOWN", "SAVE"});
  conn_.reset();
  if (r) return ok();  // not expected: the server answers by closing the connection
  if (r.error().code == ErrorCode::kUnavailable) return ok();
  return r.error();
}

}  // namespace merlin
