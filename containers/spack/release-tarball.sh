#!/usr/bin/env bash
# Makes the release tarball the Spack recipe (containers/spack/package.py) builds from:
# `git archive` of REV's committed tree (uncommitted changes are not in it), written as
# OUTDIR/merlin-cpp-VERSION.tar.gz with every path under merlin-cpp-VERSION/, and prints
# "SHA256  FILE" (sha256sum's format) on stdout.
#   containers/spack/release-tarball.sh [--recipe OUT.py] [--url URL] [REV] [OUTDIR]
#   defaults: REV HEAD, OUTDIR the current directory, URL file://<the tarball's absolute path>
# VERSION, from the tags vX.Y.Z as `git describe` sees them: REV tagged gives X.Y.Z; N commits
# after the tag X.Y.Z-N-gHASH; no tag before REV, PROJECT_VERSION-gHASH (project(merlin VERSION)
# of REV's CMakeLists.txt). All are valid Spack versions ('+' is not: it starts a variant).
# --recipe OUT.py writes this checkout's containers/spack/package.py to OUT.py with its two lines
# marked "# @release-tarball" filled in: url = URL and version("VERSION", sha256="SHA256").
# The hash is of the file this git made: another git version may compress the same tree
# differently, so publish the file you made (docs/install.md, "Spack") rather than remaking it.
# Exit 0 made, 1 failed (the message says why), 2 usage.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "release-tarball: $*" >&2; exit 1; }
usage() { echo "usage: release-tarball.sh [--recipe OUT.py] [--url URL] [REV] [OUTDIR]" >&2; exit 2; }

recipe_out=""
url=""
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --recipe) [ $# -ge 2 ] || usage; recipe_out=$2; shift 2 ;;
    --url) [ $# -ge 2 ] || usage; url=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    -*) usage ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -le 2 ] || usage
rev=${args[0]:-HEAD}
outdir=${args[1]:-.}

root=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) || die "$here is not in a git checkout"
commit=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}") || die "'$rev' is not a commit of $root"

if tag=$(git -C "$root" describe --tags --match 'v[0-9]*' --exact-match "$commit" 2>/dev/null); then
  version=${tag#v}
elif described=$(git -C "$root" describe --tags --match 'v[0-9]*' "$commit" 2>/dev/null); then
  version=${described#v}  # X.Y.Z-N-gHASH
else
  cmakelists=$(git -C "$root" show "$commit:CMakeLists.txt" 2>/dev/null) || die "$rev has no CMakeLists.txt"
  base=$(sed -n -E 's/^project\(merlin VERSION ([0-9]+\.[0-9]+\.[0-9]+).*/\1/p' <<<"$cmakelists")
  base=${base%%$'\n'*}
  [ -n "$base" ] || die "no tag v* before $rev, and its CMakeLists.txt has no project(merlin VERSION X.Y.Z)"
  version=$base-g$(git -C "$root" rev-parse --short "$commit")
fi
[[ $version =~ ^[0-9][A-Za-z0-9._-]*$ ]] || die "version '$version' (of $rev) is not a valid Spack version"

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
name=merlin-cpp-$version
tarball=$outdir/$name.tar.gz
if [ "$commit" = "$(git -C "$root" rev-parse HEAD)" ] && [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
  echo "release-tarball: note: $root has uncommitted changes; the tarball holds $rev's committed tree only" >&2
fi
git -C "$root" archive --format=tar.gz --prefix="$name/" -o "$tarball.part" "$commit"
mv -f "$tarball.part" "$tarball"
sha=$(sha256sum "$tarball")
sha=${sha%% *}

if [ -n "$recipe_out" ]; then
  url=${url:-file://$tarball}
  # The url goes into a Python string literal: no quotes, backslashes or blanks.
  [[ $url =~ ^[^[:space:]\"\'\\]+$ ]] || die "--url '$url' cannot go into the recipe (quotes, backslashes or blanks)"
  [[ ${url##*/} == "$name.tar.gz" ]] ||
    echo "release-tarball: note: the url's file name is not $name.tar.gz, as Spack's mirrors and 'spack checksum' expect" >&2
  recipe_in=$here/package.py
  # awk rebuilds the two marked lines whole (no sed escaping of the url), keeping their indent.
  REL_URL=$url REL_VERSION=$version REL_SHA=$sha awk '
    / # @release-tarball$/ {
      match($0, /^[ \t]*/); indent = substr($0, 1, RLENGTH)
      if ($0 ~ /^[ \t]*url = /) {
        print indent "url = \"" ENVIRON["REL_URL"] "\"  # @release-tarball"; urls++; next
      }
      if ($0 ~ /^[ \t]*version\(/) {
        print indent "version(\"" ENVIRON["REL_VERSION"] "\", sha256=\"" ENVIRON["REL_SHA"] "\")  # @release-tarball"
        versions++; next
      }
    }
    { print }
    END { if (urls != 1 || versions != 1) exit 3 }
  ' "$recipe_in" >"$recipe_out.part" || {
    rm -f "$recipe_out.part"
    die "$recipe_in needs exactly one 'url = ...' line and one 'version(...)' line ending in '# @release-tarball'"
  }
  mv -f "$recipe_out.part" "$recipe_out"
  echo "release-tarball: wrote $recipe_out: merlin-cpp@$version from $url" >&2
fi
echo "$sha  $tarball"
