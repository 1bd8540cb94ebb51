#include "adapters/broker/redis/redis_connection.h"

#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <cctype>
#include <thread>

namespace merlin {
namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  return {static_cast<time_t>(ms.count() / 1000),
          static_cast<suseconds_t>(ms.count() % 1000 * 1000)};
}

RedisReply convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::kError;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default:
      break;  // nil
  }
  return out;
}

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

}  // namespace

std::optional<long long> RedisReply::as_integer() const {
  if (type == Type::kInteger) return integer;
  if (type != Type::kString && type != Type::kStatus) return std::nullopt;
  try {
    std::size_t used = 0;
    long long v = std::stoll(str, &used);
    if (used == str.size()) return v;
  } catch (...) {
  }
  return std::nullopt;
}

RedisConnection::RedisConnection(const RedisSettings& settings)
    : settings_(settings), address_(settings.address()) {}

RedisConnection::~RedisConnection() {
  if (ctx_) redisFree(ctx_);
}

std::string RedisConnection::describe(const std::string& what) const {
  return "redis " + address_ + ": " + what;
}

Result<std::unique_ptr<RedisConnection>> RedisConnection::open(const RedisSettings& settings) {
  std::unique_ptr<RedisConnection> c(new RedisConnection(settings));
  auto r = c->connect_once();
  if (!r) return r.error();
  return c;
}

Result<void> RedisConnection::connect_once() {
  if (ctx_) {
    redisFree(ctx_);
    ctx_ = nullptr;
  }
  ctx_ = redisConnectWithTimeout(settings_.host.c_str(), settings_.port,
                                 to_timeval(settings_.connect_timeout));
  if (!ctx_) return Error::unavailable(describe("cannot allocate a connection"));
  if (ctx_->err) {
    auto e = Error::unavailable(describe(lower_first(ctx_->errstr)));
    redisFree(ctx_);
    ctx_ = nullptr;
    return e;
  }
  // hiredis 0.14 makes its socket without SOCK_CLOEXEC: a step (or any program we start)
  // would inherit a logged-in connection to the broker.
  if (int flags = ::fcntl(ctx_->fd, F_GETFD); flags >= 0)
    (void)::fcntl(ctx_->fd, F_SETFD, flags | FD_CLOEXEC);
  redisSetTimeout(ctx_, to_timeval(settings_.command_timeout));
  std::vector<RedisCommand> hello;
  if (!settings_.password.empty()) {
    if (settings_.username.empty())
      hello.push_back({"AUTH", settings_.password});
    else
      hello.push_back({"AUTH", settings_.username, settings_.password});
  }
  if (settings_.db != 0) hello.push_back({"SELECT", std::to_string(settings_.db)});
  if (hello.empty()) return ok();
  auto r = send(hello, std::chrono::milliseconds(0));
  if (!r) return r.error();
  for (const auto& reply : *r)
    if (reply.is_error()) return Error::runtime(describe(reply.str));
  return ok();
}

Result<void> RedisConnection::reconnect() {
  auto deadline = std::chrono::steady_clock::now() + settings_.reconnect_budget;
  auto delay = std::chrono::milliseconds(50);
  while (true) {
    auto r = connect_once();
    if (r || r.error().code != ErrorCode::kUnavailable) return r;
    if (std::chrono::steady_clock::now() + delay > deadline) return r;
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(1000));
  }
}

Result<std::vector<RedisReply>> RedisConnection::send(const std::vector<RedisCommand>& cmds,
                                                      std::chrono::milliseconds extra) {
  if (!ctx_) return Error::unavailable(describe("not connected"));
  if (extra.count() > 0) redisSetTimeout(ctx_, to_timeval(settings_.command_timeout + extra));
  for (const auto& argv : cmds) {
    std::vector<const char*> args;
    std::vector<size_t> lens;
    for (const auto& a : argv) {
      args.push_back(a.data());
      lens.push_back(a.size());
    }
    redisAppendCommandArgv(ctx_, static_cast<int>(args.size()), args.data(), lens.data());
  }
  std::vector<RedisReply> out;
  out.reserve(cmds.size());
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(ctx_, &raw) != REDIS_OK || !raw) {
      auto e = Error::unavailable(
          describe(ctx_->err ? lower_first(ctx_->errstr) : std::string("no reply")));
      // The stream is out of step now: drop the connection, the next call reconnects.
      redisFree(ctx_);
      ctx_ = nullptr;
      return e;
    }
    out.push_back(convert(static_cast<redisReply*>(raw)));
    freeReplyObject(raw);
  }
  if (extra.count() > 0) redisSetTimeout(ctx_, to_timeval(settings_.command_timeout));
  return out;
}

namespace {

// A restarted server answers LOADING until its AOF is read back: nothing ran, so wait and
// send again, within the reconnect budget.
bool is_loading(const std::string& error_text) { return error_text.rfind("LOADING", 0) == 0; }

template <typename Attempt, typename Loading>
auto retry_while_loading(std::chrono::milliseconds budget, Attempt attempt, Loading loading) {
  auto deadline = std::chrono::steady_clock::now() + budget;
  auto delay = std::chrono::milliseconds(50);
  while (true) {
    auto r = attempt();
    if (!loading(r) || std::chrono::steady_clock::now() + delay > deadline) return r;
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(1000));
  }
}

}  // namespace

Result<std::vector<RedisReply>> RedisConnection::pipeline(const std::vector<RedisCommand>& cmds) {
  return retry_while_loading(
      settings_.reconnect_budget, [&] { return pipeline_once(cmds); },
      [](const Result<std::vector<RedisReply>>& r) {
        return r && std::any_of(r->begin(), r->end(), [](const RedisReply& x) {
                 return x.is_error() && is_loading(x.str);
               });
      });
}

Result<RedisReply> RedisConnection::command(const RedisCommand& argv,
                                            std::chrono::milliseconds extra) {
  return retry_while_loading(
      settings_.reconnect_budget, [&] { return command_once(argv, extra); },
      [](const Result<RedisReply>& r) {
        return !r && r.error().message.find(": LOADING") != std::string::npos;
      });
}

Result<std::vector<RedisReply>> RedisConnection::pipeline_once(
    const std::vector<RedisCommand>& cmds) {
  if (cmds.empty()) return std::vector<RedisReply>{};
  if (ctx_) {
    auto r = send(cmds, std::chrono::milliseconds(0));
    if (r || r.error().code != ErrorCode::kUnavailable) return r;
  }
  auto c = reconnect();
  if (!c) return c.error();
  return send(cmds, std::chrono::milliseconds(0));
}

Result<RedisReply> RedisConnection::command_once(const RedisCommand& argv,
                                                 std::chrono::milliseconds extra) {
  Result<std::vector<RedisReply>> r = Error::unavailable("");
  if (ctx_) r = send({argv}, extra);
  if (!r && r.error().code == ErrorCode::kUnavailable) {
    auto c = reconnect();
    if (!c) return c.error();
    r = send({argv}, extra);
  }
  if (!r) return r.error();
  auto& reply = r->front();
  if (reply.is_error()) return Error::runtime(describe(reply.str));
  return std::move(reply);
}

Result<std::vector<RedisReply>> RedisConnection::transaction(
    const std::vector<RedisCommand>& cmds) {
  std::vector<RedisCommand> all;
  all.reserve(cmds.size() + 2);
  all.push_back({"MULTI"});
  all.insert(all.end(), cmds.begin(), cmds.end());
  all.push_back({"EXEC"});
  auto r = pipeline(all);
  if (!r) return r.error();
  for (const auto& reply : *r)  // a queueing error (wrong arity) aborts EXEC: report it
    if (reply.is_error()) return Error::runtime(describe(reply.str));
  auto& exec = r->back();
  if (!exec.is_array()) return Error::runtime(describe("transaction aborted"));
  for (const auto& reply : exec.elements)
    if (reply.is_error()) return Error::runtime(describe(reply.str));
  return std::move(exec.elements);
}

}  // namespace merlin
