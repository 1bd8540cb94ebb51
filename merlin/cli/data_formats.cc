#include "merlin/cli/data_formats.h"

#if MERLIN_HAVE_HDF5
#include "adapters/data/hdf5/hdf5_format.h"
#endif

namespace merlin::cli {

bool is_hdf5_path(const std::string& path) {
  auto ends = [&](const std::string& tail) {
    return path.size() >= tail.size() &&
           path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(".h5") || ends(".hdf5");
}

std::unique_ptr<data::DatasetFormat> hdf5_dataset_format() {
#if MERLIN_HAVE_HDF5
  return hdf5::hdf5_format();
#else
  return nullptr;
#endif
}

std::string no_hdf5_message(const std::string& path) {
  return path + ": this merlin was built without HDF5 support (MERLIN_WITH_HDF5=OFF); rebuild "
                "with -DMERLIN_WITH_HDF5=ON";
}

}  // namespace merlin::cli
