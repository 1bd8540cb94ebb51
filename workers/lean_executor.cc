#include "workers/lean_executor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "merlin/util/files.h"
#include "merlin/util/log.h"

namespace merlin {
namespace {

// Closes on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The script in memory, at a descriptor above 3 (posix_spawn makes it fd 3 of the step; a
// dup2 onto itself would keep its close-on-exec flag on older C libraries).
Result<int> script_in_memory(const std::string& text) {
  int fd = ::memfd_create("merlin-step", MFD_CLOEXEC);
  if (fd < 0) return Error::runtime(std::string("memfd_create: ") + std::strerror(errno));
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return Error::runtime(std::string("cannot write the step's script to memory: ") +
                            std::strerror(errno));
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  if (fd <= 3) {
    int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    if (high < 0) return Error::runtime(std::string("fcntl: ") + std::strerror(errno));
    fd = high;
  }
  return fd;
}

}  // namespace

LeanExecutor::LeanExecutor(std::unique_ptr<StepExecutor> inner, const TaskRenderer& renderer,
                           LeanExecutorOptions options)
    : inner_(std::move(inner)),
      renderer_(renderer),
      options_(std::move(options)),
      logs_(options_.logs) {}

Result<void> LeanExecutor::write_instance_script(const RenderedTask& task) {
  const std::pair<std::uint32_t, int> key{task.instance.v, static_cast<int>(task.kind)};
  // Held while writing: the slots of this executor start an instance's first tasks together.
  std::lock_guard lock(mu_);
  if (scripts_written_.count(key)) return ok();
  const std::string path = renderer_.instance_dir(task.instance) + "/" +
                           renderer_.instance_script_name(task.instance, task.kind);
  // Other processes (and other executors of this one) write the same text at once: each
  // through a temp name of its own, and the renames leave one whole file.
  if (!files::exists(path)) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                            std::to_string(reinterpret_cast<std::uintptr_t>(this));
    auto w = files::write(tmp, renderer_.instance_script(task.instance, task.kind));
    if (!w) return w;
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      return Error::runtime("cannot rename " + tmp + ": " + std::strerror(errno));
  }
  scripts_written_.insert(key);
  return ok();
}

Result<void> LeanExecutor::prepare(const RenderedTask& task) {
  auto d = files::make_dirs(task.dir);
  if (!d) return d;
  return write_instance_script(task);
}

Result<ExecResult> LeanExecutor::run(const RenderedTask& task) {
  auto p = prepare(task);
  if (!p) return p.error();
  auto script = script_in_memory(task.script_text);
  if (!script) return script.error();
  Fd script_fd{*script};
  auto out = logs_.capture_file();
  if (!out) return out.error();
  Fd out_fd{*out};
  auto err = logs_.capture_file();
  if (!err) return err.error();
  Fd err_fd{*err};

  auto r = inner_->run_streams(task, {script_fd.fd, out_fd.fd, err_fd.fd});
  StepLogs::Attempt a{task.sample, task.attempt, r ? r->exit_code : -1};
  auto appended = logs_.append(renderer_.instance_dir(task.instance), a, out_fd.fd, err_fd.fd);
  if (!appended)
    log::error("cannot append step output to the logs step={} sample={} error=\"{}\"", task.step,
               task.sample, appended.error().message);
  return r;
}

Result<void> LeanExecutor::mark_finished(const RenderedTask& task) {
  if (!options_.finished_markers) return ok();
  return files::write(task.dir + "/MERLIN_FINISHED", "");
}

}  // namespace merlin
