// The one file that names OpenSSL (tests/integration/layering.sh checks it).
#include "adapters/broker/redis/tls_stream.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

namespace merlin {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string lower_first(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

std::string errno_text(int e) { return lower_first(std::strerror(e)); }

// 1: `fd` is ready for `events` (or has an error the next call reports), 0: the deadline
// passed, -1: poll failed (errno).
int wait_for(int fd, short events, Clock::time_point deadline) {
  while (true) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::clamp<long long>(left, 0, INT_MAX)));
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

// OpenSSL writes with write(2): a peer gone would raise SIGPIPE and end the process. Blocked
// for the call (this thread only); one raised meanwhile is taken off before unblocking.
class NoSigpipe {
 public:
  NoSigpipe() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~NoSigpipe() {
    int saved = errno;
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        timespec zero{0, 0};
        while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    errno = saved;
  }
  NoSigpipe(const NoSigpipe&) = delete;
  NoSigpipe& operator=(const NoSigpipe&) = delete;

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

Result<int> tcp_connect(const std::string& host, int port, milliseconds timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (int g = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); g != 0)
    return Error::unavailable(lower_first(::gai_strerror(g)));
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, ::freeaddrinfo);
  const auto deadline = Clock::now() + timeout;
  std::string why = "connection refused";
  for (addrinfo* a = found; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      why = errno_text(errno);
      continue;
    }
    int err = 0;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        int w = wait_for(fd, POLLOUT, deadline);
        socklen_t len = sizeof err;
        if (w == 0)
          err = ETIMEDOUT;
        else if (w < 0)
          err = errno;
        else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
          err = errno;
      }
    }
    if (err != 0) {
      why = errno_text(err);
      ::close(fd);
      continue;
    }
    int one = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
  }
  return Error::unavailable(why);
}

// What the verify callback saw of the first failure.
struct VerifyNote {
  int error = X509_V_OK;
  std::vector<std::string> names;
  std::string issuer;
};

std::vector<std::string> certificate_names(X509* cert) {
  std::vector<std::string> out;
  if (!cert) return out;
  auto* sans = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* g = sk_GENERAL_NAME_value(sans, i);
    if (g->type == GEN_DNS) {
      out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(g->d.dNSName)),
                       static_cast<std::size_t>(ASN1_STRING_length(g->d.dNSName)));
    } else if (g->type == GEN_IPADD) {
      const int len = ASN1_STRING_length(g->d.iPAddress);
      char text[INET6_ADDRSTRLEN] = "";
      if (len == 4 || len == 16)
        ::inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(g->d.iPAddress), text,
                    sizeof text);
      out.emplace_back(text);
    }
  }
  GENERAL_NAMES_free(sans);
  if (out.empty()) {
    char cn[256];
    if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn) > 0)
      out.emplace_back(cn);
  }
  return out;
}

std::string one_line(const X509_NAME* name) {
  if (!name) return "";
  BIO* mem = BIO_new(BIO_s_mem());
  if (!mem) return "";
  X509_NAME_print_ex(mem, name, 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  long n = BIO_get_mem_data(mem, &data);
  std::string out(data ? data : "", n > 0 ? static_cast<std::size_t>(n) : 0);
  BIO_free(mem);
  return out;
}

// The connection's notes (TlsStream::Impl) as SSL's app data.
VerifyNote* note_of(SSL* ssl);
void note_cert_request(SSL* ssl);

int note_failure(int ok, X509_STORE_CTX* store) {
  if (ok) return ok;
  auto* ssl = static_cast<SSL*>(
      X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* note = ssl ? note_of(ssl) : nullptr;
  if (note && note->error == X509_V_OK) {
    note->error = X509_STORE_CTX_get_error(store);
    note->names = certificate_names(X509_STORE_CTX_get0_cert(store));
    if (X509* cur = X509_STORE_CTX_get_current_cert(store))
      note->issuer = one_line(X509_get_issuer_name(cur));
  }
  return ok;  // 0: the handshake fails
}

// Called when the server asks for a client certificate and none is set: noted, so that the
// server then dropping the connection is reported as what it is (TLS 1.3 servers refuse a
// missing certificate after the client's handshake is done).
int no_client_cert(SSL* ssl, X509**, EVP_PKEY**) {
  note_cert_request(ssl);
  return 0;  // go on without one: a server may take none (tls-auth-clients optional)
}

TlsVerifyFailure failure_of(const VerifyNote& note) {
  TlsVerifyFailure f;
  f.names = note.names;
  f.issuer = note.issuer;
  using K = TlsVerifyFailure::Kind;
  switch (note.error) {
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      f.kind = K::kNameMismatch;
      break;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
      f.kind = K::kUntrustedIssuer;
      break;
    case X509_V_ERR_CERT_HAS_EXPIRED:
      f.kind = K::kExpired;
      break;
    case X509_V_ERR_CERT_NOT_YET_VALID:
      f.kind = K::kNotYetValid;
      break;
    default:
      f.kind = K::kOther;
      f.detail = X509_verify_cert_error_string(note.error);
  }
  return f;
}

std::string openssl_reason(unsigned long e) {
  const char* r = ERR_reason_error_string(e);
  if (r) return r;
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// An SSL_ERROR_SSL from the handshake or later, as an Error. `handshake`: the server's
// answer to our hello is being read (a non-TLS answer means a plain port).
Error ssl_failure(unsigned long e, bool handshake, bool sent_cert) {
  const int reason = ERR_GET_REASON(e);
  const std::string detail = openssl_reason(e);
  switch (reason) {
#ifdef SSL_R_UNEXPECTED_EOF_WHILE_READING  // OpenSSL 3; 1.1.1 reports it as SSL_ERROR_SYSCALL
    case SSL_R_UNEXPECTED_EOF_WHILE_READING:
      return Error::unavailable("TLS: the server closed the connection");
#endif
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
    case SSL_R_UNKNOWN_PROTOCOL:
    case SSL_R_RECORD_LENGTH_MISMATCH:
      if (handshake)
        return Error::runtime("TLS: " + tls_refusal_text(TlsRefusal::kNotTls, detail, 0));
      break;
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
      return Error::runtime("TLS: " + tls_refusal_text(TlsRefusal::kClientCertRequired, detail, 0));
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
    case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
      return Error::runtime(
          "TLS: " + tls_refusal_text(sent_cert ? TlsRefusal::kClientCertRejected
                                               : TlsRefusal::kClientCertRequired,
                                     "the server's alert: " + detail, 0));
    default:
      break;
  }
  // Anything else mid-run (a corrupted record) is a broken connection, retried as one; in the
  // handshake it is a disagreement no retry mends.
  if (handshake) return Error::runtime("TLS: handshake failed: " + detail);
  return Error::unavailable("TLS: " + detail);
}

struct CtxFree {
  void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct SslFree {
  void operator()(SSL* s) const { SSL_free(s); }
};

Result<void> readable(const std::string& path, const char* option) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Error::bad_input("TLS: cannot read " + path + " (" + option + "): " + errno_text(errno));
  ::close(fd);
  return ok();
}

Error load_failure(const std::string& path, const char* option, const std::string& what) {
  unsigned long e = ERR_peek_last_error();
  return Error::bad_input("TLS: " + path + " (" + option + ") " + what +
                          (e ? ": " + openssl_reason(e) : std::string()));
}

Result<std::unique_ptr<SSL_CTX, CtxFree>> make_context(const TlsClientOptions& o) {
  ERR_clear_error();
  std::unique_ptr<SSL_CTX, CtxFree> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return Error::runtime("TLS: cannot make a TLS context: " + openssl_reason(ERR_get_error()));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_AUTO_RETRY);
  if (o.verify == TlsVerify::kChainAndName) {
    if (!o.ca_certs.empty()) {
      if (auto r = readable(o.ca_certs, "ssl_ca_certs"); !r) return r.error();
      if (SSL_CTX_load_verify_locations(ctx.get(), o.ca_certs.c_str(), nullptr) != 1)
        return load_failure(o.ca_certs, "ssl_ca_certs", "holds no PEM certificate");
    } else if (SSL_CTX_set_default_verify_paths(ctx.get()) != 1) {
      return Error::runtime("TLS: cannot read the system's trusted CAs: " +
                            openssl_reason(ERR_get_error()));
    }
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, note_failure);
  } else {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  }
  SSL_CTX_set_client_cert_cb(ctx.get(), no_client_cert);
  if (!o.certfile.empty() || !o.keyfile.empty()) {
    if (o.certfile.empty())
      return Error::bad_input("TLS: ssl_keyfile " + o.keyfile +
                              " is given without ssl_certfile (app.yaml: certfile), the client "
                              "certificate it is the key of");
    const std::string& key = o.keyfile.empty() ? o.certfile : o.keyfile;
    const char* key_option = o.keyfile.empty() ? "ssl_certfile" : "ssl_keyfile";
    if (auto r = readable(o.certfile, "ssl_certfile"); !r) return r.error();
    if (auto r = readable(key, key_option); !r) return r.error();
    struct stat st {};
    if (::stat(key.c_str(), &st) == 0)
      if (auto problem = key_file_problem(key_option, key, st.st_mode))
        return Error::bad_input("TLS: " + *problem);
    if (SSL_CTX_use_certificate_chain_file(ctx.get(), o.certfile.c_str()) != 1)
      return load_failure(o.certfile, "ssl_certfile", "holds no PEM certificate");
    if (SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) != 1)
      return load_failure(key, key_option, "holds no PEM private key (without a passphrase)");
    if (SSL_CTX_check_private_key(ctx.get()) != 1)
      return load_failure(key, key_option, "is not the key of " + o.certfile);
  }
  return ctx;
}

}  // namespace

struct TlsStream::Impl {
  int fd = -1;
  std::unique_ptr<SSL_CTX, CtxFree> ctx;
  std::unique_ptr<SSL, SslFree> ssl;
  std::string host, ca_certs;
  bool sent_cert = false;
  bool asked_for_cert = false;  ///< the server wanted a client certificate we do not have
  bool received = false;        ///< a byte has come after the handshake
  VerifyNote note;
  ~Impl() {
    ssl.reset();
    if (fd >= 0) ::close(fd);
  }
  // Runs `op` (an SSL call) until it is done, waiting for the socket between tries; the
  // result of `op` (> 0) or an Error.
  template <typename Op>
  Result<int> drive(Op op, Clock::time_point deadline, bool handshake, const char* waiting_for);
};

template <typename Op>
Result<int> TlsStream::Impl::drive(Op op, Clock::time_point deadline, bool handshake,
                                   const char* waiting_for) {
  NoSigpipe no_sigpipe;
  while (true) {
    ERR_clear_error();
    errno = 0;
    int n = op();
    if (n > 0) return n;
    const int why = SSL_get_error(ssl.get(), n);
    if (why == SSL_ERROR_WANT_READ || why == SSL_ERROR_WANT_WRITE) {
      int w = wait_for(fd, why == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
      if (w < 0) return Error::unavailable(errno_text(errno));
      if (w == 0) return Error::unavailable(waiting_for);
      continue;
    }
    Error e = Error::unavailable("TLS: " + openssl_reason(ERR_peek_error()));
    if (why == SSL_ERROR_ZERO_RETURN) {
      e = Error::unavailable("server closed the connection");
    } else if (why == SSL_ERROR_SYSCALL) {
      const int err = errno;
      if (handshake && SSL_get_verify_result(ssl.get()) != X509_V_OK) break;
      e = Error::unavailable(err ? errno_text(err) : "server closed the connection");
    } else if (why == SSL_ERROR_SSL) {
      const unsigned long err = ERR_peek_error();
      if (ERR_GET_REASON(err) == SSL_R_CERTIFICATE_VERIFY_FAILED) break;
      e = ssl_failure(err, handshake, sent_cert);
    }
    // Dropped before a first reply by a server that wanted a certificate we did not send.
    if (e.code == ErrorCode::kUnavailable && asked_for_cert && !sent_cert && !received)
      return Error::runtime("TLS: " +
                            tls_refusal_text(TlsRefusal::kClientCertRequired, e.message, 0));
    return e;
  }
  // The server's certificate was refused.
  VerifyNote seen = note;
  if (seen.error == X509_V_OK) seen.error = static_cast<int>(SSL_get_verify_result(ssl.get()));
  return Error::runtime("TLS: " + tls_verify_failure_text(failure_of(seen), host, ca_certs));
}

namespace {
VerifyNote* note_of(SSL* ssl) {
  auto* impl = static_cast<TlsStream::Impl*>(SSL_get_app_data(ssl));
  return impl ? &impl->note : nullptr;
}
void note_cert_request(SSL* ssl) {
  if (auto* impl = static_cast<TlsStream::Impl*>(SSL_get_app_data(ssl)))
    impl->asked_for_cert = true;
}
}  // namespace

TlsStream::TlsStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TlsStream::~TlsStream() = default;

Result<std::unique_ptr<TlsStream>> TlsStream::connect(const TlsClientOptions& o) {
  auto impl = std::make_unique<Impl>();
  auto ctx = make_context(o);  // this side's files first: no use reaching the server without
  if (!ctx) return ctx.error();
  impl->ctx = std::move(*ctx);
  impl->sent_cert = !o.certfile.empty();
  impl->host = o.host;
  impl->ca_certs = o.ca_certs;
  auto fd = tcp_connect(o.host, o.port, o.connect_timeout);
  if (!fd) return fd.error();
  impl->fd = *fd;
  impl->ssl.reset(SSL_new(impl->ctx.get()));
  if (!impl->ssl || SSL_set_fd(impl->ssl.get(), impl->fd) != 1)
    return Error::runtime("TLS: cannot set up the connection: " + openssl_reason(ERR_get_error()));
  SSL* ssl = impl->ssl.get();
  const bool ip = is_ip_literal(o.host);
  if (!ip) SSL_set_tlsext_host_name(ssl, o.host.c_str());  // SNI: names only, never an IP
  if (o.verify == TlsVerify::kChainAndName) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    const int set = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, o.host.c_str())
                       : X509_VERIFY_PARAM_set1_host(param, o.host.c_str(), 0);
    if (set != 1) return Error::bad_input("TLS: cannot check the server's name '" + o.host + "'");
  }
  SSL_set_app_data(ssl, impl.get());
  auto done = impl->drive([&] { return SSL_connect(ssl); }, Clock::now() + o.connect_timeout,
                          true, "");
  if (!done) {
    Error e = done.error();
    if (e.message.empty())  // the deadline passed with no answer
      e = Error::unavailable(
          "TLS: " + tls_refusal_text(TlsRefusal::kNoHandshakeReply, "",
                                     std::chrono::duration<double>(o.connect_timeout).count()));
    return e;
  }
  return std::unique_ptr<TlsStream>(new TlsStream(std::move(impl)));
}

Result<void> TlsStream::write_all(std::string_view data, std::chrono::milliseconds timeout) {
  SSL* ssl = impl_->ssl.get();
  while (!data.empty()) {
    const int chunk = static_cast<int>(std::min<std::size_t>(data.size(), INT_MAX));
    auto n = impl_->drive([&] { return SSL_write(ssl, data.data(), chunk); },
                          Clock::now() + timeout, false, "no room to send within the timeout");
    if (!n) return n.error();
    data.remove_prefix(static_cast<std::size_t>(*n));
  }
  return ok();
}

Result<std::size_t> TlsStream::read_some(char* buf, std::size_t cap,
                                         std::chrono::milliseconds timeout) {
  SSL* ssl = impl_->ssl.get();
  const int want = static_cast<int>(std::min<std::size_t>(cap, INT_MAX));
  auto n = impl_->drive([&] { return SSL_read(ssl, buf, want); }, Clock::now() + timeout, false,
                        "no reply within the timeout");
  if (!n) return n.error();
  impl_->received = true;
  return static_cast<std::size_t>(*n);
}

}  // namespace merlin
