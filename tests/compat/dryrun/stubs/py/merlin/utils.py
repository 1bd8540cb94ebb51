"""merlin.utils's get_flux_cmd and get_flux_alloc, as the harness calls them: the command for
the installed flux's version ("flux run" / "flux alloc" from 0.48 on, the default when flux is
missing and no_errors is set)."""
import subprocess


def get_flux_version(flux_path, no_errors=False):
    try:
        out = subprocess.run([flux_path, "version"], capture_output=True, text=True).stdout
    except OSError:
        if no_errors:
            return "0.48.0"
        raise
    for line in out.splitlines():
        if line.startswith("commands:"):
            return line.split()[-1]
    return "0.48.0"


def _version(flux_path, no_errors):
    return [int(n) for n in get_flux_version(flux_path, no_errors).split(".")[:2]]


def get_flux_cmd(flux_path, no_errors=False):
    major, minor = _version(flux_path, no_errors)
    if major == 0 and minor < 13:
        return "flux wreckrun"
    if major == 0 and minor < 48:
        return "flux mini run"
    return "flux run"


def get_flux_alloc(flux_path, no_errors=False):
    major, minor = _version(flux_path, no_errors)
    if major == 0 and minor < 48:
        return f"{flux_path} mini alloc"
    return f"{flux_path} alloc"
