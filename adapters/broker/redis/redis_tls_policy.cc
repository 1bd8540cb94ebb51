#include "adapters/broker/redis/redis_tls_policy.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <cstdio>

namespace merlin {

TlsVerify tls_verify_mode(CertReqs reqs) {
  return reqs == CertReqs::kNone ? TlsVerify::kOff : TlsVerify::kChainAndName;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

std::string tls_verify_off_warning(const std::string& address) {
  return "redis " + address +
         ": ssl_cert_reqs is none: the server's certificate is NOT verified, so anyone between "
         "here and it can read and change the traffic, password included";
}

namespace {

std::string names_text(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += is_ip_literal(n) ? n : "\"" + n + "\"";
  }
  return out;
}

std::string trusted_store(const std::string& ca_certs) {
  return ca_certs.empty()
             ? "the system's trusted CAs (name the server's CA file with ssl_ca_certs)"
             : ca_certs + " (ssl_ca_certs)";
}

}  // namespace

std::string tls_verify_failure_text(const TlsVerifyFailure& f, const std::string& host,
                                    const std::string& ca_certs) {
  std::string out = "certificate verify failed: ";
  using K = TlsVerifyFailure::Kind;
  switch (f.kind) {
    case K::kNameMismatch:
      out += "the server's certificate is for " +
             (f.names.empty() ? std::string("no name") : names_text(f.names)) + ", not \"" + host +
             "\"";
      break;
    case K::kUntrustedIssuer:
      out += "the server's certificate" +
             (f.issuer.empty() ? std::string() : " (issued by " + f.issuer + ")") +
             " is not signed by a CA in " + trusted_store(ca_certs);
      break;
    case K::kExpired:
      out += "the server's certificate has expired";
      break;
    case K::kNotYetValid:
      out += "the server's certificate is not valid yet (check the clocks)";
      break;
    case K::kOther:
      out += f.detail;
      break;
  }
  return out;
}

std::string tls_refusal_text(TlsRefusal r, const std::string& detail, double seconds) {
  switch (r) {
    case TlsRefusal::kNotTls:
      return "the server does not speak TLS (" + detail +
             "): is this a plain Redis port? use redis:// for it";
    case TlsRefusal::kNoHandshakeReply: {
      char s[32];
      std::snprintf(s, sizeof s, "%.1f", seconds);
      return std::string("no TLS handshake reply within ") + s +
             " s: is this a plain Redis port? use redis:// for it";
    }
    case TlsRefusal::kClientCertRequired:
      return "the server requires a client certificate: give ssl_certfile and ssl_keyfile "
             "(app.yaml: certfile, keyfile)";
    case TlsRefusal::kClientCertRejected:
      return "the server refused this client's certificate (" + detail + ")";
  }
  return detail;
}

std::optional<std::string> key_file_problem(const std::string& key, const std::string& path,
                                            mode_t mode) {
  if (!(mode & S_IROTH)) return std::nullopt;
  char m[8];
  std::snprintf(m, sizeof m, "%04o", static_cast<unsigned>(mode & 07777));
  return key + " " + path + " is readable by everyone (mode " + m + "); run: chmod 600 " + path;
}

}  // namespace merlin
