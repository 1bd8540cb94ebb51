#pragma once
// Helpers for the spec tests: parse inline specs as "spec.yaml".
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "merlin/core/spec/spec_loader.h"

namespace merlin::spec::testing {

/// The error text of parsing `text` ("" when it parses).
inline std::string errors_of(std::string_view text, const LoadOptions& options = {}) {
  auto r = parse_spec(text, "spec.yaml", options);
  return r.ok() ? std::string() : r.error().message;
}

/// Parses `text`, failing the test (with the messages) when it does not parse.
inline LoadedSpec parse_ok(std::string_view text, const LoadOptions& options = {}) {
  auto r = parse_spec(text, "spec.yaml", options);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : LoadedSpec{};
}

}  // namespace merlin::spec::testing
