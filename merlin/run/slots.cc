#include "merlin/run/slots.h"

namespace merlin::run {

Result<int> check_slots(long long value, const std::string& flag) {
  if (value < 1 || value > kMaxSlots)
    return Error::bad_input(flag + " must be between 1 and " + std::to_string(kMaxSlots) +
                            " (tasks run at once), got " + std::to_string(value));
  return static_cast<int>(value);
}

}  // namespace merlin::run
