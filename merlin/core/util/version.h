#pragma once
/// merlin's version, as `git describe` gave it when the binary was built (cmake/merlin_version.cmake):
/// "0.1.0" on a release tag, "0.1.0+12.gabc1234" twelve commits after it, "0.1.0+gabc1234"
/// before any tag, ".dirty" added for uncommitted changes; the project version without git.

namespace merlin {

const char* merlin_version();

}  // namespace merlin
