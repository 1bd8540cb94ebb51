"""merlin.study.batch.check_for_scheduler, as the harness calls it: whether the legend's check
command for `scheduler` runs and prints the expected text."""
import subprocess


def check_for_scheduler(scheduler, scheduler_legend):
    if scheduler not in ("flux", "slurm", "lsf", "pbs") or scheduler not in scheduler_legend:
        return False
    entry = scheduler_legend[scheduler]
    try:
        out = subprocess.run(entry["check cmd"], capture_output=True).stdout
    except OSError:
        return False
    return entry["expected check output"] in out
