#include "adapters/web/web_access.h"

#include <cctype>
#include <filesystem>
#include <fstream>

#include "merlin/core/util/secret.h"

namespace merlin::web {
namespace fs = std::filesystem;

Result<std::string> generate_token() { return random_secret(); }

bool is_loopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address.rfind("127.", 0) == 0;
}

namespace {

// Equal strings, in a time that depends on the lengths only.
bool same(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

bool token_accepted(const HttpRequest& request, const std::string& token) {
  if (token.empty()) return true;
  if (auto q = request.query.find("token"); q != request.query.end() && same(q->second, token))
    return true;
  auto h = request.headers.find("authorization");
  if (h == request.headers.end()) return false;
  // RFC 7235 section 2.1: `auth-scheme 1*SP token68`, the scheme case-insensitive.
  const std::string& value = h->second;
  const std::string kScheme = "bearer";
  if (value.size() <= kScheme.size() || value[kScheme.size()] != ' ') return false;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(value[i])) != kScheme[i]) return false;
  const auto credentials = value.find_first_not_of(' ', kScheme.size());
  return credentials != std::string::npos && same(value.substr(credentials), token);
}

Result<std::string> err_file_in(const std::string& workspace, const std::string& relative) {
  if (relative.empty()) return Error::bad_input("no file named");
  if (relative.find('\0') != std::string::npos) return Error::bad_input("a NUL in the path");
  fs::path rel(relative);
  if (rel.is_absolute()) return Error::bad_input("an absolute path: only files of the workspace");
  for (const auto& part : rel)
    if (part == "..") return Error::bad_input("'..' in the path: only files of the workspace");
  if (rel.extension() != ".err") return Error::bad_input("only .err files are served");
  std::error_code ec;
  const fs::path root = fs::canonical(workspace, ec);
  if (ec) return Error::runtime("the workspace " + workspace + " is gone: " + ec.message());
  const fs::path file = fs::canonical(root / rel, ec);
  if (ec) return Error::runtime(relative + ": no such file in the workspace");
  // A symbolic link inside the workspace may still point out of it.
  auto [r, f] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  if (r != root.end()) return Error::bad_input(relative + " leads out of the workspace");
  if (!fs::is_regular_file(file, ec)) return Error::bad_input(relative + " is not a regular file");
  if (file.extension() != ".err") return Error::bad_input("only .err files are served");
  return file.string();
}

Result<std::string> range_tail(const std::string& path, std::uint64_t offset, std::uint64_t length,
                               std::size_t max_bytes) {
  const std::uint64_t skip = length > max_bytes ? length - max_bytes : 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::runtime("cannot read " + path);
  in.seekg(static_cast<std::streamoff>(offset + skip));
  std::string out(static_cast<std::size_t>(length - skip), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  if (static_cast<std::size_t>(in.gcount()) != out.size())
    return Error::runtime(path + " is shorter than its index says (truncated?)");
  if (skip > 0) {
    auto nl = out.find('\n');
    if (nl != std::string::npos) out.erase(0, nl + 1);
  }
  return out;
}

Result<std::string> file_tail(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error::runtime("cannot read " + path);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.close();
  return range_tail(path, 0, size, max_bytes);
}

}  // namespace merlin::web
