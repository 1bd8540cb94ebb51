#include "merlin/run/progress.h"

#include <unistd.h>

#include "merlin/core/util/status_line.h"
#include "merlin/run/status_report.h"

namespace merlin::run {
namespace {

// The shared part: when a line is due, and the text of it.
class Paced : public Progress {
 public:
  Paced(std::string what, std::chrono::milliseconds every, Now now)
      : what_(std::move(what)),
        every_(every),
        now_(now ? std::move(now) : Now([] { return Clock::now(); })),
        start_(now_()),
        last_(start_) {}

  bool due() const override { return now_() - last_ >= every_; }
  void update(std::uint64_t done, std::uint64_t total) override {
    auto t = now_();
    if (t - last_ < every_) return;
    last_ = t;
    show(what_ + progress_line(done, total, std::chrono::duration<double>(t - start_).count()));
  }

 protected:
  virtual void show(const std::string& line) = 0;

 private:
  std::string what_;
  std::chrono::milliseconds every_;
  Now now_;
  Clock::time_point start_, last_;
};

class Terminal : public Paced {
 public:
  Terminal(std::string what, std::FILE* out, std::chrono::milliseconds every, Now now)
      : Paced(std::move(what), every, std::move(now)), out_(out) {}
  void finish() override {
    // A log line that cleared the progress line has ended the line already.
    if (shown_ && (out_ != stderr || log::status_line_shown())) std::fputc('\n', out_);
    shown_ = false;
    if (out_ == stderr) log::set_status_line(false);
  }

 private:
  void show(const std::string& line) override {
    std::fprintf(out_, "\r%s   ", line.c_str());
    std::fflush(out_);
    shown_ = true;
    if (out_ == stderr) log::set_status_line(true);  // log lines clear it first
  }
  std::FILE* out_;
  bool shown_ = false;
};

class Log : public Paced {
 public:
  Log(std::string what, std::function<void(const std::string&)> write,
      std::chrono::milliseconds every, Now now)
      : Paced(std::move(what), every, std::move(now)), write_(std::move(write)) {}
  void finish() override {}

 private:
  void show(const std::string& line) override { write_(line); }
  std::function<void(const std::string&)> write_;
};

}  // namespace

std::unique_ptr<Progress> terminal_progress(std::string what, std::FILE* out,
                                            std::chrono::milliseconds every, Progress::Now now) {
  return std::make_unique<Terminal>(std::move(what), out, every, std::move(now));
}

std::unique_ptr<Progress> log_progress(std::string what,
                                       std::function<void(const std::string&)> write,
                                       std::chrono::milliseconds every, Progress::Now now) {
  return std::make_unique<Log>(std::move(what), std::move(write), every, std::move(now));
}

std::unique_ptr<Progress> progress_on(std::FILE* out, std::string what,
                                      std::chrono::milliseconds tty_every,
                                      std::chrono::milliseconds log_every) {
  if (::isatty(::fileno(out))) return terminal_progress(std::move(what), out, tty_every);
  return log_progress(
      std::move(what), [out](const std::string& line) { std::fprintf(out, "%s\n", line.c_str()); },
      log_every);
}

}  // namespace merlin::run
