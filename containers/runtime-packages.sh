#!/usr/bin/env bash
# Prints the Debian packages that own the shared libraries the given programs name directly
# (their DT_NEEDED entries, found where ldd finds them), one per line, sorted — apt brings
# those packages' own dependencies: what the runtime stage of containers/Dockerfile installs, so a new
# library linked on any branch reaches the image without editing the Dockerfile.
#   containers/runtime-packages.sh /opt/merlin/bin/*
# Exit 1 when a library is not found or no package owns it (the message names it).
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: runtime-packages.sh PROGRAM..." >&2; exit 2; }
declare -A pkgs=()
bad=0
for prog in "$@"; do
  [ -f "$prog" ] || continue
  # Static or non-ELF programs (merlin-guard is static) have nothing to install.
  ldd "$prog" >/dev/null 2>&1 || continue
  needed=" $(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ') "
  while read -r soname lib; do
    case $needed in *" $soname "*) ;; *) continue ;; esac
    if [ "$lib" = not ]; then echo "runtime-packages: $prog: $soname not found" >&2; bad=1; continue; fi
    owner=""
    # Merged /usr: ldd may say /lib/... where dpkg knows /usr/lib/... (or the other way round).
    for p in "$lib" "$(realpath "$lib")" "/usr$lib" "${lib#/usr}"; do
      owner=$(dpkg-query -S "$p" 2>/dev/null) || owner=""
      owner=${owner%%$'\n'*}; owner=${owner%%:*}
      [ -n "$owner" ] && break
    done
    if [ -z "$owner" ]; then echo "runtime-packages: no package owns $lib ($prog)" >&2; bad=1; continue; fi
    pkgs[$owner]=1
  done < <(ldd "$prog" | awk '/=> not found/ {print $1, "not found"; next} /=>/ {print $1, $3}')
done
[ $bad = 0 ] || exit 1
printf '%s\n' "${!pkgs[@]}" | sort
