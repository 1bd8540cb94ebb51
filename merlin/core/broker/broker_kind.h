#pragma once
/// Which kind of broker a Backend is, as a value: compared with other kinds, never with text.
/// Its name is what a workspace's run record writes (`broker=redis`).
#include <string>
#include <string_view>

namespace merlin {

class BrokerKind {
 public:
  /// `name` must outlive the kind: a literal of the provider that declares it.
  constexpr explicit BrokerKind(std::string_view name) : name_(name) {}
  constexpr std::string_view name() const { return name_; }
  std::string str() const { return std::string(name_); }
  friend constexpr bool operator==(BrokerKind a, BrokerKind b) { return a.name_ == b.name_; }
  friend constexpr bool operator!=(BrokerKind a, BrokerKind b) { return !(a == b); }

 private:
  std::string_view name_;
};

}  // namespace merlin
