#pragma once
/// The decisions of Redis over TLS that need no OpenSSL, so they are unit-tested alone: what
/// `ssl_cert_reqs` asks to verify, how the server's name is checked, and the one-line messages
/// of a refused connection. tls_stream.cc (the one file with OpenSSL) asks these.
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "merlin/core/broker/broker_location.h"

namespace merlin {

/// What the client checks of the server's certificate.
enum class TlsVerify {
  kOff,            ///< ssl_cert_reqs=none: anything is accepted (merlin warns once)
  kChainAndName,   ///< the chain up to a trusted CA, and the host name or IP address in it
};

/// `required` (and unset: verification is on by default) and `optional` verify the chain and
/// the name; `none` turns verification off. On a client, Python's CERT_OPTIONAL is the same as
/// CERT_REQUIRED in practice (a server always presents a certificate), so it is treated so.
TlsVerify tls_verify_mode(CertReqs reqs);

/// How the server's name is matched against its certificate: an IP literal ("127.0.0.1",
/// "::1") against the certificate's IP addresses, anything else against its DNS names (and
/// sent as SNI; an IP is never sent as SNI).
bool is_ip_literal(const std::string& host);

/// The warning printed once per process when verification is off.
std::string tls_verify_off_warning(const std::string& address);

/// Why OpenSSL's chain or name check failed, as tls_stream.cc saw it.
struct TlsVerifyFailure {
  enum class Kind {
    kNameMismatch,     ///< the certificate is for other names
    kUntrustedIssuer,  ///< no trusted CA signed it (self-signed, unknown CA)
    kExpired,
    kNotYetValid,
    kOther,            ///< anything else: `detail` is OpenSSL's text
  };
  Kind kind = Kind::kOther;
  std::vector<std::string> names;  ///< the certificate's DNS names and IPs (its CN when none)
  std::string issuer;              ///< the issuer of the certificate that failed, one line
  std::string detail;
};

/// "certificate verify failed: the server's certificate is for "localhost", 127.0.0.1, not
/// "127.0.0.2"" / "...: the server's certificate (issued by CN=x) is not signed by a CA in
/// /x/ca.crt (ssl_ca_certs)".
std::string tls_verify_failure_text(const TlsVerifyFailure& f, const std::string& host,
                                    const std::string& ca_certs);

/// Why a connection that reached the server did not become a usable TLS one.
enum class TlsRefusal {
  kNotTls,              ///< the server answered with something that is not TLS
  kNoHandshakeReply,    ///< no answer to the handshake in time: most likely a plain port
  kClientCertRequired,  ///< the server wants a client certificate (tls-auth-clients yes)
  kClientCertRejected,  ///< the server did not accept the one sent
};

/// The text of a refusal; `detail` is OpenSSL's reason, `seconds` the handshake timeout.
std::string tls_refusal_text(TlsRefusal r, const std::string& detail, double seconds);

/// A private key readable by others (S_IROTH), refused as a password file is: the text to
/// refuse it with, nullopt when `mode` is fine. `key` names the option ("ssl_keyfile").
std::optional<std::string> key_file_problem(const std::string& key, const std::string& path,
                                            mode_t mode);

}  // namespace merlin
