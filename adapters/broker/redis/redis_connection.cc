#include "adapters/broker/redis/redis_connection.h"

#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "merlin/core/util/log.h"

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
      out.error_code = redis_error_code_of(out.str);
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

// A command's words as hiredis takes them: pointers and lengths (binary-safe).
struct ArgvView {
  explicit ArgvView(const RedisCommand& argv) {
    args.reserve(argv.size());
    lens.reserve(argv.size());
    for (const auto& a : argv) {
      args.push_back(a.data());
      lens.push_back(a.size());
    }
  }
  int argc() const { return static_cast<int>(args.size()); }
  std::vector<const char*> args;
  std::vector<size_t> lens;
};

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
  drop_tls();
}

void RedisConnection::drop_tls() {
  tls_.reset();
  if (reader_) redisReaderFree(reader_);
  reader_ = nullptr;
}

std::string RedisConnection::describe(const std::string& what) const {
  return "redis " + address_ + ": " + what;
}

Result<std::unique_ptr<RedisConnection>> RedisConnection::open(const RedisSettings& settings) {
  std::unique_ptr<RedisConnection> c(new RedisConnection(settings));
  if (!settings.retry_first_connect) {
    auto r = c->connect_once();
    if (!r) return r.error();
    return c;
  }
  auto r = c->retrying<bool>(
      [&]() -> RedisResult<bool> {
        auto once = c->connect_once();
        if (!once) return {once.error(), once.redis_code()};
        return true;
      },
      [](bool) { return false; });
  if (!r) return r.error();
  return c;
}

RedisResult<void> RedisConnection::connect_once() {
  if (settings_.tls) return connect_tls();
  if (ctx_) {
    redisFree(ctx_);
    ctx_ = nullptr;
  }
  ctx_ = settings_.socket_path.empty()
             ? redisConnectWithTimeout(settings_.host.c_str(), settings_.port,
                                       to_timeval(settings_.connect_timeout))
             : redisConnectUnixWithTimeout(settings_.socket_path.c_str(),
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
  answered_ = false;
  return log_in();
}

RedisResult<void> RedisConnection::connect_tls() {
  drop_tls();
  const TlsVerify verify = tls_verify_mode(settings_.tls_settings.cert_reqs);
  if (verify == TlsVerify::kOff) {
    static std::once_flag warned;  // one line per process, however many connections
    std::call_once(warned, [&] { log::warn("{}", tls_verify_off_warning(address_)); });
  }
  TlsClientOptions o;
  o.host = settings_.host;
  o.port = settings_.port;
  o.verify = verify;
  o.ca_certs = settings_.tls_settings.ca_certs;
  o.certfile = settings_.tls_settings.certfile;
  o.keyfile = settings_.tls_settings.keyfile;
  o.connect_timeout = settings_.connect_timeout;
  auto stream = TlsStream::connect(o);
  if (!stream) {
    Error e = stream.error();
    e.message = describe(e.message);
    return e;
  }
  tls_ = std::move(*stream);
  reader_ = redisReaderCreate();
  if (!reader_) {
    drop_tls();
    return Error::unavailable(describe("cannot allocate a reply reader"));
  }
  return log_in();
}

RedisResult<void> RedisConnection::log_in() {
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
  for (const auto& reply : *r) {
    if (!reply.is_error()) continue;
    if (ctx_) redisFree(ctx_);  // not logged in: never send anything on it
    ctx_ = nullptr;
    drop_tls();
    // A refused AUTH names the ACL user (never the password); it is not retried.
    std::string whose;
    if (!settings_.username.empty()) whose = "user '" + settings_.username + "'";
    if (!settings_.password_source.empty())
      whose += (whose.empty() ? "" : ", ") + std::string("the password from ") +
               settings_.password_source;
    return {Error::runtime(describe(reply.str) + (whose.empty() ? "" : " (" + whose + ")")),
            reply.error_code};
  }
  return ok();
}

Result<std::vector<RedisReply>> RedisConnection::send_tls(const std::vector<RedisCommand>& cmds,
                                                          std::chrono::milliseconds extra) {
  const auto timeout = settings_.command_timeout + extra;
  std::string out;  // every command in one write: a pipeline is one round trip
  for (const auto& argv : cmds) {
    ArgvView v(argv);
    char* encoded = nullptr;
    int n = redisFormatCommandArgv(&encoded, v.argc(), v.args.data(), v.lens.data());
    if (n < 0 || !encoded) return Error::runtime(describe("cannot encode a command"));
    out.append(encoded, static_cast<std::size_t>(n));
    redisFreeCommand(encoded);
  }
  // Any failure leaves the stream out of step: drop the connection, the next call reconnects.
  auto failed = [&](Error e) {
    e.message = describe(e.message);
    drop_tls();
    return e;
  };
  if (auto w = tls_->write_all(out, timeout); !w) return failed(w.error());
  std::vector<RedisReply> replies;
  replies.reserve(cmds.size());
  char buf[16 * 1024];
  while (replies.size() < cmds.size()) {
    void* raw = nullptr;
    if (redisReaderGetReply(reader_, &raw) != REDIS_OK)
      return failed(Error::unavailable("protocol error in the server's reply"));
    if (raw) {
      replies.push_back(convert(static_cast<redisReply*>(raw)));
      freeReplyObject(raw);
      continue;
    }
    auto got = tls_->read_some(buf, sizeof buf, timeout);
    if (!got) return failed(got.error());
    if (redisReaderFeed(reader_, buf, *got) != REDIS_OK)
      return failed(Error::unavailable("protocol error in the server's reply"));
  }
  return replies;
}

Result<std::vector<RedisReply>> RedisConnection::send(const std::vector<RedisCommand>& cmds,
                                                      std::chrono::milliseconds extra) {
  if (settings_.tls) {
    if (!tls_) return Error::unavailable(describe("not connected"));
    return send_tls(cmds, extra);
  }
  if (!ctx_) return Error::unavailable(describe("not connected"));
  if (extra.count() > 0) redisSetTimeout(ctx_, to_timeval(settings_.command_timeout + extra));
  for (const auto& argv : cmds) {
    ArgvView v(argv);
    redisAppendCommandArgv(ctx_, v.argc(), v.args.data(), v.lens.data());
  }
  std::vector<RedisReply> out;
  out.reserve(cmds.size());
  for (std::size_t i = 0; i < cmds.size(); ++i) {
    void* raw = nullptr;
    if (redisGetReply(ctx_, &raw) != REDIS_OK || !raw) {
      const int read_errno = errno;  // hiredis keeps only its text (errstr)
      auto e = Error::unavailable(
          describe(ctx_->err ? lower_first(ctx_->errstr) : std::string("no reply")));
      // What a TLS port does to a plain client: accept, then close (or reset) without a word.
      if (!answered_ &&
          (ctx_->err == REDIS_ERR_EOF || (ctx_->err == REDIS_ERR_IO && read_errno == ECONNRESET)))
        e.message += " before its first reply (if it is a TLS port, use rediss://)";
      // The stream is out of step now: drop the connection, the next call reconnects.
      redisFree(ctx_);
      ctx_ = nullptr;
      return e;
    }
    out.push_back(convert(static_cast<redisReply*>(raw)));
    freeReplyObject(raw);
    answered_ = true;
  }
  if (extra.count() > 0) redisSetTimeout(ctx_, to_timeval(settings_.command_timeout));
  return out;
}

namespace {

// A restarted server answers LOADING until its AOF is read back: nothing ran, so wait and
// send again.
bool is_loading(const RedisReply& reply) {
  return reply.is_error() && reply.error_code == RedisErrorCode::kLoading;
}

template <typename T>
bool worth_retrying(const RedisResult<T>& r) {
  return r.error().code == ErrorCode::kUnavailable || r.redis_code() == RedisErrorCode::kLoading;
}

std::string seconds_text(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

template <typename T, typename Attempt, typename Busy>
RedisResult<T> RedisConnection::retrying(Attempt attempt, Busy busy) {
  using namespace std::chrono;
  std::optional<steady_clock::time_point> first_failure;
  auto delay = milliseconds(50);
  while (true) {
    RedisResult<T> r = attempt();
    if (r ? !busy(*r) : !worth_retrying(r)) return r;
    auto now = steady_clock::now();
    if (!first_failure) first_failure = now;
    if (now + delay > *first_failure + settings_.reconnect_budget) {
      if (r) return r;  // still LOADING: the caller sees the server's replies
      Error e = r.error();
      e.message += "; gave up after retrying for " + seconds_text(now - *first_failure) +
                   " s (the broker retry budget is " + seconds_text(settings_.reconnect_budget) +
                   " s)";
      return {std::move(e), r.redis_code()};
    }
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, milliseconds(1000));
  }
}

RedisResult<std::vector<RedisReply>> RedisConnection::send_connected(
    const std::vector<RedisCommand>& cmds, std::chrono::milliseconds extra) {
  if (settings_.tls ? !tls_ : !ctx_) {
    auto c = connect_once();
    if (!c) return {c.error(), c.redis_code()};
  }
  return send(cmds, extra);
}

RedisResult<std::vector<RedisReply>> RedisConnection::pipeline(
    const std::vector<RedisCommand>& cmds) {
  if (cmds.empty()) return std::vector<RedisReply>{};
  return retrying<std::vector<RedisReply>>(
      [&] { return send_connected(cmds, std::chrono::milliseconds(0)); },
      [](const std::vector<RedisReply>& replies) {
        return std::any_of(replies.begin(), replies.end(),
                           [](const RedisReply& x) { return is_loading(x); });
      });
}

RedisResult<RedisReply> RedisConnection::command(const RedisCommand& argv,
                                                 std::chrono::milliseconds extra) {
  auto r = retrying<std::vector<RedisReply>>(
      [&] { return send_connected({argv}, extra); },
      [](const std::vector<RedisReply>& replies) { return is_loading(replies.front()); });
  if (!r) return {r.error(), r.redis_code()};
  auto& reply = r->front();
  if (reply.is_error()) return {Error::runtime(describe(reply.str)), reply.error_code};
  return std::move(reply);
}

RedisResult<std::vector<RedisReply>> RedisConnection::transaction(
    const std::vector<RedisCommand>& cmds) {
  std::vector<RedisCommand> all;
  all.reserve(cmds.size() + 2);
  all.push_back({"MULTI"});
  all.insert(all.end(), cmds.begin(), cmds.end());
  all.push_back({"EXEC"});
  auto r = pipeline(all);
  if (!r) return r;
  for (const auto& reply : *r)  // a queueing error (wrong arity) aborts EXEC: report it
    if (reply.is_error()) return {Error::runtime(describe(reply.str)), reply.error_code};
  auto& exec = r->back();
  if (!exec.is_array()) return Error::runtime(describe("transaction aborted"));
  for (const auto& reply : exec.elements)
    if (reply.is_error()) return {Error::runtime(describe(reply.str)), reply.error_code};
  return std::move(exec.elements);
}

}  // namespace merlin
