#include "adapters/broker/amqp/amqp_connection.h"

#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_ssl_socket.h>
#include <amqp_tcp_socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <set>

namespace merlin {
namespace {

constexpr amqp_channel_t kChannel = 1;

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(ms.count() % 1000 * 1000);
  return tv;
}

std::string text(amqp_bytes_t b) {
  return b.bytes ? std::string(static_cast<const char*>(b.bytes), b.len) : std::string();
}

amqp_bytes_t bytes(const std::string& s) {
  amqp_bytes_t b;
  b.len = s.size();
  b.bytes = const_cast<char*>(s.data());
  return b;
}

// The broker's or the library's words for a failed RPC.
std::string reply_text(const amqp_rpc_reply_t& r) {
  switch (r.reply_type) {
    case AMQP_RESPONSE_NORMAL:
      return "ok";
    case AMQP_RESPONSE_NONE:
      return "no reply";
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
      return amqp_error_string2(r.library_error);
    case AMQP_RESPONSE_SERVER_EXCEPTION:
      if (r.reply.id == AMQP_CONNECTION_CLOSE_METHOD) {
        auto* m = static_cast<amqp_connection_close_t*>(r.reply.decoded);
        return "the broker closed the connection: " + text(m->reply_text) + " (" +
               std::to_string(m->reply_code) + ")";
      }
      if (r.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        auto* m = static_cast<amqp_channel_close_t*>(r.reply.decoded);
        return "the broker closed the channel: " + text(m->reply_text) + " (" +
               std::to_string(m->reply_code) + ")";
      }
      return "the broker answered with method " + std::to_string(r.reply.id);
  }
  return "unknown reply";
}

std::string field_text(const amqp_field_value_t& v) {
  switch (v.kind) {
    case AMQP_FIELD_KIND_UTF8:
    case AMQP_FIELD_KIND_BYTES:
      return text(v.value.bytes);
    case AMQP_FIELD_KIND_I8: return std::to_string(v.value.i8);
    case AMQP_FIELD_KIND_U8: return std::to_string(v.value.u8);
    case AMQP_FIELD_KIND_I16: return std::to_string(v.value.i16);
    case AMQP_FIELD_KIND_U16: return std::to_string(v.value.u16);
    case AMQP_FIELD_KIND_I32: return std::to_string(v.value.i32);
    case AMQP_FIELD_KIND_U32: return std::to_string(v.value.u32);
    case AMQP_FIELD_KIND_I64: return std::to_string(v.value.i64);
    case AMQP_FIELD_KIND_U64:
    case AMQP_FIELD_KIND_TIMESTAMP: return std::to_string(v.value.u64);
    case AMQP_FIELD_KIND_BOOLEAN: return v.value.boolean ? "true" : "false";
    default: return "";
  }
}

// A message's body and headers into `m`.
void fill(AmqpMessage& m, const amqp_message_t& msg) {
  m.body = text(msg.body);
  if (msg.properties._flags & AMQP_BASIC_HEADERS_FLAG)
    for (int i = 0; i < msg.properties.headers.num_entries; ++i) {
      const auto& e = msg.properties.headers.entries[i];
      m.headers[text(e.key)] = field_text(e.value);
    }
}

}  // namespace

struct AmqpConnection::State {
  amqp_connection_state_t conn = nullptr;
  AmqpSettings settings;
  std::string where;
  std::uint64_t published = 0;  ///< publish sequence numbers on the channel so far
  bool broken = false;          ///< a channel or connection error: reconnect
  std::uint16_t prefetch = 0;  ///< the last basic.qos (0: none, no limit)
  /// The queues consumed; a consumer's tag is its queue's name.
  std::set<std::string> consuming;
  /// Deliveries read while waiting for something else (a publish's confirms), for `next`.
  std::deque<AmqpMessage> stash;

  ~State() {
    if (!conn) return;
    if (!broken) {
      amqp_channel_close(conn, kChannel, AMQP_REPLY_SUCCESS);
      amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
    }
    amqp_destroy_connection(conn);
  }

  Error fail(const std::string& what, const amqp_rpc_reply_t& r) {
    broken = r.reply_type != AMQP_RESPONSE_NORMAL;
    Error e = Error::runtime(where + ": " + what + ": " + reply_text(r));
    if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION) e.code = ErrorCode::kUnavailable;
    return e;
  }
  Error fail(const std::string& what, int status) {
    broken = true;
    Error e = Error::runtime(where + ": " + what + ": " + amqp_error_string2(status));
    e.code = ErrorCode::kUnavailable;
    return e;
  }
  Result<void> check(const std::string& what) {
    auto r = amqp_get_rpc_reply(conn);
    if (r.reply_type != AMQP_RESPONSE_NORMAL) return fail(what, r);
    return ok();
  }
  /// After the broker closed the channel: acknowledges that, opens it again in confirm mode.
  /// Deliveries of the old channel are gone with it (RabbitMQ queued them again).
  Result<void> reopen_channel() {
    amqp_channel_close_ok_t close_ok{};
    int st = amqp_send_method(conn, kChannel, AMQP_CHANNEL_CLOSE_OK_METHOD, &close_ok);
    if (st != AMQP_STATUS_OK) return fail("cannot acknowledge a closed channel", st);
    amqp_channel_open(conn, kChannel);
    if (auto c = check("cannot open the channel again"); !c) return c;
    amqp_confirm_select(conn, kChannel);
    if (auto c = check("cannot turn on publisher confirms again"); !c) return c;
    published = 0;
    prefetch = 0;
    consuming.clear();
    stash.clear();
    return ok();
  }
  /// The counts of an existing queue (a passive queue.declare).
  Result<amqp_queue_declare_ok_t*> passive_declare(const std::string& queue) {
    if (auto u = usable(); !u) return u.error();
    auto* r = amqp_queue_declare(conn, kChannel, bytes(queue), 1, 0, 0, 0, amqp_empty_table);
    if (auto c = check("no queue " + queue); !c) return c.error();
    return r;
  }
  Result<void> usable() {
    if (broken) return Error::runtime(where + ": the connection failed before; open a new one");
    return ok();
  }
};

AmqpConnection::AmqpConnection(std::unique_ptr<State> state) : s_(std::move(state)) {}
AmqpConnection::~AmqpConnection() = default;

std::string AmqpConnection::describe() const { return s_->where; }

std::string AmqpConnection::server_version() const {
  const amqp_table_t* props = amqp_get_server_properties(s_->conn);
  std::string product = "RabbitMQ", version;
  for (int i = 0; props && i < props->num_entries; ++i) {
    const std::string key = text(props->entries[i].key);
    if (key == "product") product = field_text(props->entries[i].value);
    if (key == "version") version = field_text(props->entries[i].value);
  }
  return version.empty() ? product : product + " " + version;
}

Result<std::unique_ptr<AmqpConnection>> AmqpConnection::open(const AmqpSettings& settings) {
  auto s = std::make_unique<State>();
  s->settings = settings;
  s->where = std::string(settings.tls ? "amqps://" : "amqp://") + settings.username + "@" + settings.host + ":" +
             std::to_string(settings.port) + (settings.vhost == "/" ? "/" : "/" + settings.vhost);
  s->conn = amqp_new_connection();
  if (!s->conn) return Error::runtime(s->where + ": cannot allocate a connection");
  amqp_socket_t* socket =
      settings.tls ? amqp_ssl_socket_new(s->conn) : amqp_tcp_socket_new(s->conn);
  if (!socket) return Error::runtime(s->where + ": cannot create a socket");
  if (settings.tls) {
    amqp_ssl_socket_set_verify_peer(socket, settings.verify ? 1 : 0);
    amqp_ssl_socket_set_verify_hostname(socket, settings.verify ? 1 : 0);
    if (!settings.ca_certs.empty() &&
        amqp_ssl_socket_set_cacert(socket, settings.ca_certs.c_str()) != AMQP_STATUS_OK)
      return Error::bad_input(s->where + ": cannot read the CA certificates in " +
                              settings.ca_certs);
    if (!settings.certfile.empty() &&
        amqp_ssl_socket_set_key(socket, settings.certfile.c_str(),
                                settings.keyfile.empty() ? settings.certfile.c_str()
                                                         : settings.keyfile.c_str()) !=
            AMQP_STATUS_OK)
      return Error::bad_input(s->where + ": cannot read the client certificate " +
                              settings.certfile + " or its key");
  }
  timeval tv = to_timeval(settings.timeout);
  int st = amqp_socket_open_noblock(socket, settings.host.c_str(), settings.port, &tv);
  if (st == AMQP_STATUS_SSL_PEER_VERIFY_FAILED || st == AMQP_STATUS_SSL_HOSTNAME_VERIFY_FAILED ||
      st == AMQP_STATUS_SSL_ERROR) {
    Error e = s->fail("the TLS handshake failed", st);
    e.code = ErrorCode::kRuntime;  // a certificate that does not verify will not on a retry
    return e;
  }
  if (st != AMQP_STATUS_OK) {
    // rabbitmq-c keeps no errno of a failed connect: say what its "socket error" means here.
    Error e = s->fail(st == AMQP_STATUS_SOCKET_ERROR
                          ? "cannot connect (refused, or nothing reachable at that address)"
                          : "cannot connect",
                      st);
    e.retryable = true;
    return e;
  }
  amqp_set_handshake_timeout(s->conn, &tv);
  amqp_set_rpc_timeout(s->conn, &tv);
  auto login = amqp_login(s->conn, settings.vhost.c_str(), 0, 131072, settings.heartbeat_seconds,
                          AMQP_SASL_METHOD_PLAIN, settings.username.c_str(),
                          settings.password.c_str());
  if (login.reply_type != AMQP_RESPONSE_NORMAL) {
    Error e = s->fail("the broker refused the login", login);
    e.code = ErrorCode::kRuntime;  // a refusal, not an outage: retrying will not help
    return e;
  }
  amqp_channel_open(s->conn, kChannel);
  if (auto c = s->check("cannot open a channel"); !c) return c.error();
  amqp_confirm_select(s->conn, kChannel);
  if (auto c = s->check("cannot turn on publisher confirms"); !c) return c.error();
  return std::unique_ptr<AmqpConnection>(new AmqpConnection(std::move(s)));
}

Result<std::uint64_t> AmqpConnection::declare_queue(const std::string& queue,
                                                    const AmqpQueueOptions& options) {
  if (auto u = s_->usable(); !u) return u.error();
  amqp_table_entry_t entries[5];
  int n = 0;
  if (options.quorum) {
    entries[n].key = amqp_cstring_bytes("x-queue-type");
    entries[n].value.kind = AMQP_FIELD_KIND_UTF8;
    entries[n].value.value.bytes = amqp_cstring_bytes("quorum");
    ++n;
  }
  if (options.consumer_timeout_ms) {
    entries[n].key = amqp_cstring_bytes("x-consumer-timeout");
    entries[n].value.kind = AMQP_FIELD_KIND_I64;
    entries[n].value.value.i64 = *options.consumer_timeout_ms;
    ++n;
  }
  if (!options.dead_letter_to.empty()) {
    entries[n].key = amqp_cstring_bytes("x-dead-letter-exchange");
    entries[n].value.kind = AMQP_FIELD_KIND_UTF8;
    entries[n].value.value.bytes = amqp_cstring_bytes("");
    ++n;
    entries[n].key = amqp_cstring_bytes("x-dead-letter-routing-key");
    entries[n].value.kind = AMQP_FIELD_KIND_UTF8;
    entries[n].value.value.bytes = bytes(options.dead_letter_to);
    ++n;
  }
  if (options.max_priority > 0) {
    entries[n].key = amqp_cstring_bytes("x-max-priority");
    entries[n].value.kind = AMQP_FIELD_KIND_I32;
    entries[n].value.value.i32 = options.max_priority;
    ++n;
  }
  amqp_table_t args{n, entries};
  auto* r = amqp_queue_declare(s_->conn, kChannel, bytes(queue), 0, 1, 0, 0, args);
  const auto reply = amqp_get_rpc_reply(s_->conn);
  if (reply.reply_type == AMQP_RESPONSE_SERVER_EXCEPTION &&
      reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD &&
      static_cast<amqp_channel_close_t*>(reply.reply.decoded)->reply_code ==
          AMQP_PRECONDITION_FAILED) {
    // The queue exists with other arguments (an earlier version's 40 priority levels): it is
    // used as it is, on a channel opened again (the broker closed this one).
    if (auto o = s_->reopen_channel(); !o) return o.error();
    r = amqp_queue_declare(s_->conn, kChannel, bytes(queue), 1, 0, 0, 0, amqp_empty_table);
  }
  if (auto c = s_->check("cannot declare queue " + queue); !c) return c.error();
  return static_cast<std::uint64_t>(r->message_count);
}

Result<void> AmqpConnection::publish(const std::string& queue,
                                     const std::vector<std::string>& bodies,
                                     const AmqpPublishOptions& options) {
  if (auto u = s_->usable(); !u) return u;
  amqp_basic_properties_t props{};
  props._flags = AMQP_BASIC_DELIVERY_MODE_FLAG;
  props.delivery_mode = AMQP_DELIVERY_PERSISTENT;
  std::vector<amqp_table_entry_t> headers;
  for (const auto& [key, value] : options.headers) {
    amqp_table_entry_t e{};
    e.key = bytes(key);
    e.value.kind = AMQP_FIELD_KIND_I64;
    e.value.value.i64 = value;
    headers.push_back(e);
  }
  if (!headers.empty()) {
    props._flags |= AMQP_BASIC_HEADERS_FLAG;
    props.headers.num_entries = static_cast<int>(headers.size());
    props.headers.entries = headers.data();
  }
  std::string expiration;
  if (options.expiration_ms) {
    expiration = std::to_string(std::max<std::int64_t>(0, *options.expiration_ms));
    props._flags |= AMQP_BASIC_EXPIRATION_FLAG;
    props.expiration = bytes(expiration);
  }
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const auto& body = bodies[i];
    if (i < options.priorities.size()) {
      props._flags |= AMQP_BASIC_PRIORITY_FLAG;
      props.priority = options.priorities[i];
    }
    int st = amqp_basic_publish(s_->conn, kChannel, amqp_empty_bytes, bytes(queue), 1, 0, &props,
                                bytes(body));
    if (st != AMQP_STATUS_OK) return s_->fail("cannot publish to " + queue, st);
  }
  // Confirms: a basic.ack (possibly `multiple`) for every sequence number, in order; a
  // basic.return before the ack of a message no queue took.
  const std::uint64_t last = s_->published + bodies.size();
  std::uint64_t confirmed = s_->published;
  bool returned = false;
  timeval tv = to_timeval(s_->settings.timeout);
  while (confirmed < last) {
    amqp_frame_t frame;
    amqp_maybe_release_buffers(s_->conn);
    int st = amqp_simple_wait_frame_noblock(s_->conn, &frame, &tv);
    if (st != AMQP_STATUS_OK) return s_->fail("no confirm for messages to " + queue, st);
    if (frame.frame_type != AMQP_FRAME_METHOD) continue;  // a returned message's content
    switch (frame.payload.method.id) {
      case AMQP_BASIC_ACK_METHOD: {
        auto* a = static_cast<amqp_basic_ack_t*>(frame.payload.method.decoded);
        confirmed = a->delivery_tag;
        break;
      }
      case AMQP_BASIC_NACK_METHOD:
        s_->published = last;
        return Error::runtime(s_->where + ": the broker refused messages to " + queue);
      case AMQP_BASIC_RETURN_METHOD:
        returned = true;
        break;
      case AMQP_BASIC_DELIVER_METHOD: {  // a consumer's message, kept for `next`
        auto* d = static_cast<amqp_basic_deliver_t*>(frame.payload.method.decoded);
        AmqpMessage m;
        m.tag = d->delivery_tag;
        m.redelivered = d->redelivered != 0;
        m.queue = text(d->consumer_tag);
        amqp_message_t msg;
        auto rr = amqp_read_message(s_->conn, kChannel, &msg, 0);
        if (rr.reply_type != AMQP_RESPONSE_NORMAL)
          return s_->fail("cannot read a delivery while publishing to " + queue, rr);
        fill(m, msg);
        amqp_destroy_message(&msg);
        s_->stash.push_back(std::move(m));
        break;
      }
      case AMQP_CHANNEL_CLOSE_METHOD:
      case AMQP_CONNECTION_CLOSE_METHOD: {
        amqp_rpc_reply_t r{};
        r.reply_type = AMQP_RESPONSE_SERVER_EXCEPTION;
        r.reply = frame.payload.method;
        return s_->fail("publishing to " + queue, r);
      }
      default:
        break;
    }
  }
  s_->published = last;
  if (returned)
    return Error::runtime(s_->where + ": no queue " + queue + " took the messages (declare it)");
  return ok();
}

Result<std::optional<AmqpMessage>> AmqpConnection::get(const std::string& queue) {
  if (auto u = s_->usable(); !u) return u.error();
  amqp_maybe_release_buffers(s_->conn);
  auto r = amqp_basic_get(s_->conn, kChannel, bytes(queue), 0);
  if (r.reply_type != AMQP_RESPONSE_NORMAL) return s_->fail("cannot get from " + queue, r);
  if (r.reply.id == AMQP_BASIC_GET_EMPTY_METHOD) return std::optional<AmqpMessage>();
  auto* okm = static_cast<amqp_basic_get_ok_t*>(r.reply.decoded);
  AmqpMessage m;
  m.tag = okm->delivery_tag;
  m.redelivered = okm->redelivered != 0;
  amqp_message_t msg;
  auto rr = amqp_read_message(s_->conn, kChannel, &msg, 0);
  if (rr.reply_type != AMQP_RESPONSE_NORMAL) return s_->fail("cannot read a message of " + queue, rr);
  fill(m, msg);
  amqp_destroy_message(&msg);
  return std::optional<AmqpMessage>(std::move(m));
}

Result<void> AmqpConnection::prefetch(std::uint16_t n) {
  if (auto u = s_->usable(); !u) return u;
  if (s_->prefetch == n) return ok();
  amqp_basic_qos(s_->conn, kChannel, 0, n, 1);
  if (auto c = s_->check("cannot set the prefetch"); !c) return c;
  s_->prefetch = n;
  return ok();
}

Result<void> AmqpConnection::consume(const std::string& queue) {
  if (auto u = s_->usable(); !u) return u;
  if (s_->consuming.count(queue)) return ok();
  amqp_basic_consume(s_->conn, kChannel, bytes(queue), bytes(queue), 0, 0, 0, amqp_empty_table);
  if (auto c = s_->check("cannot consume " + queue); !c) return c;
  s_->consuming.insert(queue);
  return ok();
}

Result<void> AmqpConnection::cancel(const std::string& queue) {
  if (auto u = s_->usable(); !u) return u;
  if (!s_->consuming.count(queue)) return ok();
  amqp_basic_cancel(s_->conn, kChannel, bytes(queue));
  if (auto c = s_->check("cannot cancel the consumer of " + queue); !c) return c;
  s_->consuming.erase(queue);
  return ok();
}

Result<std::optional<AmqpMessage>> AmqpConnection::next(std::chrono::milliseconds timeout) {
  if (auto u = s_->usable(); !u) return u.error();
  if (!s_->stash.empty()) {
    std::optional<AmqpMessage> m(std::move(s_->stash.front()));
    s_->stash.pop_front();
    return m;
  }
  timeval tv = to_timeval(timeout);
  while (true) {
    amqp_maybe_release_buffers(s_->conn);
    amqp_envelope_t env;
    auto r = amqp_consume_message(s_->conn, &env, &tv, 0);
    if (r.reply_type == AMQP_RESPONSE_NORMAL) {
      AmqpMessage m;
      m.tag = env.delivery_tag;
      m.redelivered = env.redelivered != 0;
      m.queue = text(env.consumer_tag);
      fill(m, env.message);
      amqp_destroy_envelope(&env);
      return std::optional<AmqpMessage>(std::move(m));
    }
    if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && r.library_error == AMQP_STATUS_TIMEOUT)
      return std::optional<AmqpMessage>();
    if (r.reply_type != AMQP_RESPONSE_LIBRARY_EXCEPTION ||
        r.library_error != AMQP_STATUS_UNEXPECTED_STATE)
      return s_->fail("cannot read a delivery", r);
    // Not a delivery: the frame waits to be read here.
    amqp_frame_t frame;
    timeval none{};
    int st = amqp_simple_wait_frame_noblock(s_->conn, &frame, &none);
    if (st != AMQP_STATUS_OK) return s_->fail("cannot read a frame", st);
    if (frame.frame_type != AMQP_FRAME_METHOD) continue;
    switch (frame.payload.method.id) {
      case AMQP_CHANNEL_CLOSE_METHOD:
      case AMQP_CONNECTION_CLOSE_METHOD: {
        amqp_rpc_reply_t c{};
        c.reply_type = AMQP_RESPONSE_SERVER_EXCEPTION;
        c.reply = frame.payload.method;
        return s_->fail("waiting for deliveries", c);
      }
      case AMQP_BASIC_CANCEL_METHOD:  // the queue was deleted: consume it again on a new one
        return s_->fail("the broker cancelled a consumer (its queue was deleted)",
                        AMQP_STATUS_UNEXPECTED_STATE);
      default:
        break;  // a late confirm: nothing waits for it
    }
  }
}

Result<void> AmqpConnection::keep_alive() {
  auto m = next(std::chrono::milliseconds(0));
  if (!m) return m.error();
  if (*m) s_->stash.push_front(std::move(**m));
  return ok();
}

bool AmqpConnection::has_pending_frames() const {
  return !s_->stash.empty() || amqp_frames_enqueued(s_->conn) || amqp_data_in_buffer(s_->conn);
}

int AmqpConnection::socket_fd() const { return amqp_get_sockfd(s_->conn); }

Result<void> AmqpConnection::ack(std::uint64_t tag) {
  if (auto u = s_->usable(); !u) return u;
  int st = amqp_basic_ack(s_->conn, kChannel, tag, 0);
  if (st != AMQP_STATUS_OK) return s_->fail("cannot ack", st);
  return ok();
}

Result<void> AmqpConnection::reject(std::uint64_t tag, bool requeue) {
  if (auto u = s_->usable(); !u) return u;
  int st = amqp_basic_reject(s_->conn, kChannel, tag, requeue ? 1 : 0);
  if (st != AMQP_STATUS_OK) return s_->fail("cannot reject", st);
  return ok();
}

Result<std::uint64_t> AmqpConnection::ready(const std::string& queue) {
  auto r = s_->passive_declare(queue);
  if (!r) return r.error();
  return static_cast<std::uint64_t>((*r)->message_count);
}

Result<std::uint32_t> AmqpConnection::consumers(const std::string& queue) {
  auto r = s_->passive_declare(queue);
  if (!r) return r.error();
  return static_cast<std::uint32_t>((*r)->consumer_count);
}

Result<std::uint64_t> AmqpConnection::purge(const std::string& queue) {
  if (auto u = s_->usable(); !u) return u.error();
  auto* r = amqp_queue_purge(s_->conn, kChannel, bytes(queue));
  if (auto c = s_->check("cannot purge " + queue); !c) return c.error();
  return static_cast<std::uint64_t>(r->message_count);
}

Result<void> AmqpConnection::delete_queue(const std::string& queue) {
  if (auto u = s_->usable(); !u) return u;
  amqp_queue_delete(s_->conn, kChannel, bytes(queue), 0, 0);
  return s_->check("cannot delete " + queue);
}

}  // namespace merlin
