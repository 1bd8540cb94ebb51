#include "merlin/run/stop_control.h"

#include <signal.h>

namespace merlin::run {
namespace {

std::atomic<int> g_interrupts{0};

extern "C" void count_interrupt(int) { g_interrupts.fetch_add(1); }

}  // namespace

void Interrupts::install(std::initializer_list<int> signals) {
  g_interrupts = 0;
  struct sigaction sa {};
  sa.sa_handler = count_interrupt;
  for (int sig : signals) sigaction(sig, &sa, nullptr);
}

void Interrupts::uninstall(std::initializer_list<int> signals) {
  for (int sig : signals) signal(sig, SIG_DFL);
  g_interrupts = 0;  // counted interrupts belong to the run that installed the handler
}

int Interrupts::count() { return g_interrupts.load(); }

void Interrupts::raise_one() { g_interrupts.fetch_add(1); }

StopControl::Steps StopControl::advance(int interrupts, bool stop_wanted) {
  Steps s;
  if ((interrupts >= 1 || stop_wanted) && !drained_) s.drain = drained_ = true;
  if (interrupts >= 2 && !aborted_) s.abort = aborted_ = true;
  return s;
}

}  // namespace merlin::run
