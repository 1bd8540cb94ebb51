#include "workers/lean_executor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "merlin/core/util/files.h"
#include "merlin/core/util/log.h"

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

LeanExecutor::~LeanExecutor() {
  for (const auto& c : free_captures_) {
    ::close(c.out);
    ::close(c.err);
  }
}

Result<LeanExecutor::Capture> LeanExecutor::take_capture() {
  {
    std::lock_guard lock(mu_);
    if (!free_captures_.empty()) {
      Capture c = free_captures_.back();
      free_captures_.pop_back();
      return c;
    }
  }
  auto out = logs_.capture_file();
  if (!out) return out.error();
  auto err = logs_.capture_file();
  if (!err) {
    ::close(*out);
    return err.error();
  }
  return Capture{*out, *err};
}

void LeanExecutor::give_back(Capture c) {
  // Emptied for the next task: the step's descriptors shared the offset, so it goes back to 0.
  bool reusable = true;
  for (int fd : {c.out, c.err})
    reusable = reusable && ::ftruncate(fd, 0) == 0 && ::lseek(fd, 0, SEEK_SET) == 0;
  if (!reusable) {
    ::close(c.out);
    ::close(c.err);
    return;
  }
  std::lock_guard lock(mu_);
  free_captures_.push_back(c);
}

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
  auto capture = take_capture();
  if (!capture) return capture.error();

  auto r = inner_->run_streams(task, {script_fd.fd, capture->out, capture->err});
  StepLogs::Attempt a{task.sample, task.attempt + 1, r ? r->exit_code : -1};
  auto appended =
      logs_.append(renderer_.instance_dir(task.instance), a, capture->out, capture->err);
  give_back(*capture);
  // A full disk: the step's output is not in the logs, so the task must not be recorded as
  // run; the worker stops and hands it back (docs/user-guide.md, "A full disk").
  if (!appended && appended.error().code == ErrorCode::kNoSpace) return appended.error();
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
