#include "merlin/cli/data_formats.h"

#include "adapters/data/hdf5/hdf5_format.h"

namespace merlin::cli {

bool is_hdf5_path(const std::string& path) {
  auto ends = [&](const std::string& tail) {
    return path.size() >= tail.size() &&
           path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(".h5") || ends(".hdf5");
}

std::unique_ptr<data::DatasetFormat> hdf5_dataset_format() { return hdf5::hdf5_format(); }

}  // namespace merlin::cli
