#pragma once
/// A TLS client connection over a TCP socket we make ourselves (OpenSSL only in
/// tls_stream.cc): a non-blocking connect bounded by a timeout, close-on-exec, TCP_NODELAY; the
/// handshake with SNI and the certificate chain and name checked (redis_tls_policy.h says
/// what and how refusals read); then bytes in and out, every wait a poll with a deadline.
///
/// Errors: kUnavailable for what a retry may cure (refused, unreachable, reset, closed, no
/// reply in time after the handshake); kRuntime for what it cannot (a certificate refused by
/// either side, a peer that does not speak TLS); kBadInput for this side's files (a CA,
/// certificate or key file missing, unreadable, not PEM, or a key readable by everyone).
/// Messages carry no address: the caller prefixes its own.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "adapters/broker/redis/redis_tls_policy.h"
#include "merlin/core/util/result.h"

namespace merlin {

struct TlsClientOptions {
  std::string host;
  int port = 0;
  TlsVerify verify = TlsVerify::kChainAndName;
  std::string ca_certs;  ///< PEM bundle of trusted CAs; empty: the system's store
  std::string certfile;  ///< this client's certificate (PEM); empty: none
  std::string keyfile;   ///< its key (PEM); empty: in certfile
  std::chrono::milliseconds connect_timeout{2'000};  ///< TCP connect, and the handshake again
};

class TlsStream {
 public:
  static Result<std::unique_ptr<TlsStream>> connect(const TlsClientOptions& options);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  /// Sends all of `data`, each wait for the socket at most `timeout`.
  Result<void> write_all(std::string_view data, std::chrono::milliseconds timeout);
  /// Reads what has come (1 to `cap` bytes), waiting at most `timeout` for the first byte.
  /// The server closing the connection is kUnavailable.
  Result<std::size_t> read_some(char* buf, std::size_t cap, std::chrono::milliseconds timeout);

  struct Impl;

 private:
  explicit TlsStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace merlin
