#pragma once
/// How Merlin writes a spec's values. Merlin loads a spec with PyYAML, which types an unquoted
/// scalar by YAML 1.1's rules (`.75` is a float, `yes` a bool, `010` an octal int), and pastes
/// `str(value)` into labels, directory names and commands. So `values: [0.5, .75]` gives
/// `0.5` and `0.75`; `1.0e+3` gives `1000.0`; `True`/`yes`/`on` give `True`; `0x1F` gives `31`.
/// Quoted scalars stay as written, and so do forms YAML 1.1 does not type: `1e3` (a YAML 1.1
/// float needs a dot), `-.5`, `08`.
#include <string>

#include "merlin/core/spec/yaml_tree.h"

namespace merlin::spec {

/// Python's `str()` of what PyYAML makes of `text` written as a plain (unquoted) scalar.
/// Timestamps keep their text (a date prints as written; a time of day is left alone).
std::string python_str_of_plain(const std::string& text);

/// The text Merlin would use for a scalar node: python_str_of_plain for a plain scalar, the
/// text itself when it was quoted or tagged.
inline std::string python_str(const YamlNode& scalar) {
  return scalar.plain ? python_str_of_plain(scalar.scalar) : scalar.scalar;
}

}  // namespace merlin::spec
