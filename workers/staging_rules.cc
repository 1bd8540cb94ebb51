#include "workers/staging_rules.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace merlin {
namespace {

constexpr std::string_view kTempTag = ".merlin-tmp.";

std::string escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::optional<std::string> unescaped(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size()) return std::nullopt;
    if (s[i] == '\\')
      out += '\\';
    else if (s[i] == 't')
      out += '\t';
    else if (s[i] == 'n')
      out += '\n';
    else
      return std::nullopt;
  }
  return out;
}

template <typename T>
bool parse_number(std::string_view s, T& out, int base = 10) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

ScratchAction scratch_action(bool has_scratch, bool success, bool requeue) {
  if (!has_scratch) return ScratchAction::kNone;
  if (requeue) return ScratchAction::kRequeue;
  return success ? ScratchAction::kStageThenCommit : ScratchAction::kKeepForInspection;
}

OutputSelection select_outputs(const std::vector<std::string>& patterns,
                               const std::vector<std::string>& files) {
  OutputSelection out;
  std::set<std::string> chosen;
  for (const auto& p : patterns) {
    bool any = false;
    for (const auto& f : files) {
      if (::fnmatch(p.c_str(), f.c_str(), FNM_PATHNAME | FNM_PERIOD) == 0) {
        chosen.insert(f);
        any = true;
      }
    }
    if (!any) out.unmatched.push_back(p);
  }
  out.files.assign(chosen.begin(), chosen.end());
  return out;
}

std::string describe_file_type(unsigned mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISREG(mode)) return "a regular file";
  return "not a regular file";
}

std::string unmatched_message(const std::vector<std::string>& unmatched,
                              const std::vector<NotRegular>& others,
                              const std::string& scratch_dir) {
  std::string pats, why;
  for (const auto& p : unmatched) {
    pats += (pats.empty() ? "'" : ", '") + p + "'";
    for (const auto& o : others) {
      if (::fnmatch(p.c_str(), o.path.c_str(), FNM_PATHNAME | FNM_PERIOD) != 0) continue;
      why += (why.empty() ? ": " : "; ") + o.path + " is " + describe_file_type(o.mode) +
             (S_ISLNK(o.mode) ? ": links are not staged (write the file itself in the scratch dir)"
                              : ": only regular files are staged");
    }
  }
  return "stage_out pattern " + pats + " matched no file in " + scratch_dir + why;
}

std::string temp_name(std::string_view base, std::string_view host, long pid) {
  return "." + std::string(base) + std::string(kTempTag) + std::string(host) + "." +
         std::to_string(pid);
}

std::optional<std::pair<std::string, long>> parse_temp_name(std::string_view name) {
  if (name.empty() || name.front() != '.') return std::nullopt;
  auto tag = name.rfind(kTempTag);
  if (tag == std::string_view::npos || tag == 0) return std::nullopt;
  std::string_view rest = name.substr(tag + kTempTag.size());
  auto dot = rest.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return std::nullopt;
  long pid = 0;
  if (!parse_number(rest.substr(dot + 1), pid)) return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, dot)), pid);
}

std::string format_manifest_line(const ManifestEntry& e) {
  char crc[9];
  static const char* kHex = "0123456789abcdef";
  for (int i = 0; i < 8; ++i) crc[i] = kHex[(e.crc32c >> (28 - 4 * i)) & 0xF];
  crc[8] = 0;
  return std::to_string(e.sample) + "\t" + escaped(e.path) + "\t" + std::to_string(e.size) + "\t" +
         crc + "\n";
}

std::map<std::pair<std::uint64_t, std::string>, ManifestEntry> read_manifest(
    std::string_view text, std::size_t* malformed) {
  std::map<std::pair<std::uint64_t, std::string>, ManifestEntry> out;
  while (!text.empty()) {
    auto nl = text.find('\n');
    if (nl == std::string_view::npos) break;  // torn last line: not written whole
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    std::string_view f[4];
    int n = 0;
    while (n < 4) {
      auto tab = line.find('\t');
      f[n++] = line.substr(0, tab);
      if (tab == std::string_view::npos) {
        line = {};
        break;
      }
      line.remove_prefix(tab + 1);
    }
    ManifestEntry e;
    std::optional<std::string> path;
    if (n != 4 || !line.empty() || !(path = unescaped(f[1])) || f[3].size() != 8 ||
        !parse_number(f[0], e.sample) || !parse_number(f[2], e.size) ||
        !parse_number(f[3], e.crc32c, 16)) {
      if (malformed != nullptr) ++*malformed;
      continue;
    }
    e.path = *path;
    out[{e.sample, e.path}] = e;
  }
  return out;
}

std::string format_success_record(const SuccessRecord& r) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.6f", r.seconds);
  return "merlin-succeeded 1\nboot " + r.boot_id + "\nseconds " + seconds + "\nfinished " +
         (r.write_finished ? "1" : "0") + "\n";
}

std::optional<SuccessRecord> parse_success_record(std::string_view text,
                                                  std::string_view boot_id) {
  if (boot_id.empty()) return std::nullopt;
  SuccessRecord r;
  std::string_view want[] = {"merlin-succeeded ", "boot ", "seconds ", "finished "};
  std::string_view value[4];
  for (int i = 0; i < 4; ++i) {
    auto nl = text.find('\n');
    if (nl == std::string_view::npos || text.substr(0, want[i].size()) != want[i])
      return std::nullopt;
    value[i] = text.substr(want[i].size(), nl - want[i].size());
    text.remove_prefix(nl + 1);
  }
  if (value[0] != "1" || value[1] != boot_id || (value[3] != "0" && value[3] != "1"))
    return std::nullopt;
  char* end = nullptr;
  const std::string s(value[2]);
  r.seconds = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(r.seconds >= 0)) return std::nullopt;
  r.boot_id = std::string(boot_id);
  r.write_finished = value[3] == "1";
  return r;
}

}  // namespace merlin
