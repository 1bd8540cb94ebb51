#pragma once
/// Names of the trainer's checkpoint files and finding the newest. A checkpoint of epoch E is
/// `epoch-00000E.ckpt` in the checkpoint directory, written as `.epoch-00000E.ckpt.tmp.<pid>`
/// and renamed, so a name that exists is a whole file; a kill leaves at most a `.tmp.` file,
/// which is ignored (and can be removed by hand).
#include <optional>
#include <string>
#include <vector>

#include "merlin/core/util/result.h"

namespace merlin::ml {

/// "epoch-000012.ckpt" for epoch 12.
std::string checkpoint_name(int epoch);

/// The epoch of a checkpoint file name, or nothing for any other name (temporaries included).
std::optional<int> checkpoint_epoch(const std::string& file_name);

/// The temporary name a process writes before renaming into checkpoint_name(epoch).
std::string checkpoint_temp_name(int epoch, long pid);

struct CheckpointFile {
  std::string path;
  int epoch = 0;
};

/// The checkpoints in `dir`, oldest epoch first (none when the directory does not exist).
/// Errors (kRuntime) when the directory cannot be read.
Result<std::vector<CheckpointFile>> list_checkpoints(const std::string& dir);

/// The checkpoints to delete to keep the newest `keep` (oldest first).
std::vector<CheckpointFile> checkpoints_beyond(const std::vector<CheckpointFile>& all, int keep);

}  // namespace merlin::ml
