#include "merlin/core/server/app_yaml_blocks.h"

#include <optional>

namespace merlin::server {
namespace {

// A double-quoted YAML scalar.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// The top-level key a line opens ("broker" for "broker:" or "broker: {...}"), if any.
std::optional<std::string> top_level_key(const std::string& line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-')
    return std::nullopt;
  auto colon = line.find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string key = line.substr(0, colon);
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
  if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front())
    key = key.substr(1, key.size() - 2);
  return key;
}

bool continues_block(const std::string& line) {
  return line.empty() || line[0] == ' ' || line[0] == '\t' ||
         line.find_first_not_of(" \t\r") == std::string::npos;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> server_blocks(const std::string& host, int port,
                                                               const std::string& pass_file) {
  auto block = [&](const char* key) {
    return std::string(key) +
           ":\n  name: redis\n  username: default\n  password: " + quoted(pass_file) +
           "\n  server: " + quoted(host) + "\n  port: " + std::to_string(port) + "\n";
  };
  return {{"broker", block("broker")}, {"results_backend", block("results_backend")}};
}

std::string replace_top_level_blocks(
    std::string_view yaml, const std::vector<std::pair<std::string, std::string>>& blocks) {
  const auto lines = split_lines(yaml);
  std::vector<bool> placed(blocks.size(), false);
  std::string out;
  for (std::size_t i = 0; i < lines.size();) {
    auto key = top_level_key(lines[i]);
    std::size_t which = blocks.size();
    if (key)
      for (std::size_t b = 0; b < blocks.size(); ++b)
        if (blocks[b].first == *key) which = b;
    if (which == blocks.size()) {
      out += lines[i++] + "\n";
      continue;
    }
    // Skip the block: its indented lines, then give back the blank ones at its end.
    std::size_t end = i + 1;
    while (end < lines.size() && continues_block(lines[end])) ++end;
    while (end > i + 1 && lines[end - 1].find_first_not_of(" \t\r") == std::string::npos) --end;
    if (!placed[which]) {
      out += blocks[which].second;
      placed[which] = true;
    }
    i = end;
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (placed[b]) continue;
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += blocks[b].second;
  }
  return out;
}

}  // namespace merlin::server
