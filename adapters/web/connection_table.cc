#include "adapters/web/connection_table.h"

#include <algorithm>

namespace merlin::web {

ConnectionTable::Admission ConnectionTable::admit(ConnectionId id, std::int64_t now_ms) {
  Admission out;
  if (held_.size() >= limits_.max_connections) {
    auto oldest = waiting();
    if (oldest.empty()) return out;  // every slot is being answered: refuse the newcomer
    out.evicted = oldest.front();
    held_.erase(oldest.front());
  }
  held_[id] = Held{now_ms, next_order_++, false};
  out.admitted = true;
  return out;
}

void ConnectionTable::answering(ConnectionId id) {
  if (auto it = held_.find(id); it != held_.end()) it->second.answering = true;
}

void ConnectionTable::release(ConnectionId id) { held_.erase(id); }

std::vector<ConnectionId> ConnectionTable::expired(std::int64_t now_ms) const {
  std::vector<ConnectionId> out;
  for (const auto& [id, h] : held_)
    if (!h.answering && now_ms >= h.accepted_ms + limits_.head_timeout_ms) out.push_back(id);
  return out;
}

std::optional<std::int64_t> ConnectionTable::next_deadline() const {
  std::optional<std::int64_t> out;
  for (const auto& [id, h] : held_)
    if (!h.answering && (!out || h.accepted_ms + limits_.head_timeout_ms < *out))
      out = h.accepted_ms + limits_.head_timeout_ms;
  return out;
}

std::vector<ConnectionId> ConnectionTable::waiting() const {
  std::vector<std::pair<std::uint64_t, ConnectionId>> by_order;
  for (const auto& [id, h] : held_)
    if (!h.answering) by_order.emplace_back(h.order, id);
  std::sort(by_order.begin(), by_order.end());
  std::vector<ConnectionId> out;
  for (const auto& [order, id] : by_order) out.push_back(id);
  return out;
}

HeadState scan_head(std::string_view bytes, std::size_t max_head_bytes) {
  const std::string_view seen = bytes.substr(0, max_head_bytes);
  if (seen.find("\r\n\r\n") != std::string_view::npos ||
      seen.find("\n\n") != std::string_view::npos)
    return HeadState::kComplete;
  return bytes.size() > max_head_bytes ? HeadState::kTooLarge : HeadState::kIncomplete;
}

}  // namespace merlin::web
