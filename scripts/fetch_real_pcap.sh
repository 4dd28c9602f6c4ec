#!/usr/bin/env bash
# scripts/fetch_real_pcap.sh - fetch the real capture the default run replays, and print its path.
#
# Debian's `pathspider` package ships tests/data/real.pcap (a short capture of real traffic).
# The capture is GPL-licensed, so it is never committed: this script downloads the .deb with
# `apt-get download` (no install, no root needed beyond apt's own lists), unpacks it with
# `dpkg-deb -x` into a cache directory, and prints the path of real.pcap on stdout. A second run
# finds the cached copy and downloads nothing.
#
# usage: scripts/fetch_real_pcap.sh [CACHE_DIR]     (default: results/cache under the project)
# exit status: 0 and the path on stdout; non-zero with a one-line reason on stderr.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${1:-$root/results/cache}"
target="$cache/pathspider/real.pcap"

if [[ -s "$target" ]]; then
  echo "$target"
  exit 0
fi

for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "fetch_real_pcap: $tool not found (Debian only)" >&2; exit 1; }
done

mkdir -p "$cache"
work="$(mktemp -d "$cache/fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# apt-get download writes into the current directory; as root it warns that the sandbox user
# cannot write there, which is harmless.
if ! (cd "$work" && apt-get download pathspider >"$work/apt.log" 2>&1); then
  echo "fetch_real_pcap: 'apt-get download pathspider' failed (run 'apt-get update' first?): $(tail -n 1 "$work/apt.log")" >&2
  exit 1
fi
deb="$(ls "$work"/pathspider_*.deb)"
dpkg-deb -x "$deb" "$work/root"
found="$(find "$work/root" -path '*/tests/data/real.pcap' -print -quit)"
if [[ -z "$found" ]]; then
  echo "fetch_real_pcap: $(basename "$deb") has no tests/data/real.pcap" >&2
  exit 1
fi
mkdir -p "$(dirname "$target")"
# Copy, then rename: a reader never sees a half-written capture.
cp "$found" "$target.tmp.$$"
mv "$target.tmp.$$" "$target"
echo "$(basename "$deb")" >"$cache/pathspider/SOURCE"
echo "$target"
