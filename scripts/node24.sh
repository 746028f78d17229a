#!/usr/bin/env bash
# Node 24, the runtime the container ships, for a machine whose own node is older.
#
#   eval "$(scripts/node24.sh)"      # this shell only: Node 24 first on PATH, native modules built for it
#
# Prints nothing when `node` is already 24 or newer. Otherwise installs the pinned Node 24 from the npm
# registry's node-linux-<arch> package (binary and headers) into .cache/node24 (git-ignored), once, and
# prints the exports that put it first on PATH and point node-gyp at its headers (npm_config_nodedir), so
# that `npm ci` builds better-sqlite3 for Node 24. The machine's own node is never touched.
set -euo pipefail

NODE24_VERSION=24.21.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -ge 24 ]; then exit 0; fi

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node24.sh: no node-linux package for $(uname -m); install Node 24 yourself" >&2; exit 1 ;;
esac
dir="$root/.cache/node24/node-linux-$arch-$NODE24_VERSION"

if [ ! -x "$dir/bin/node" ]; then
  echo "node24.sh: installing Node $NODE24_VERSION into ${dir#"$root"/}" >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  # npm checks the tarball against the registry's integrity hash.
  (cd "$tmp" && npm pack "node-linux-$arch@$NODE24_VERSION" --silent >/dev/null)
  mkdir -p "$tmp/unpacked"
  tar -xzf "$tmp"/node-linux-*.tgz -C "$tmp/unpacked" --strip-components=1
  [ -x "$tmp/unpacked/bin/node" ] && [ -d "$tmp/unpacked/include/node" ] || { echo "node24.sh: the package holds no bin/node or include/node" >&2; exit 1; }
  mkdir -p "$(dirname "$dir")"
  rm -rf "$dir"
  mv "$tmp/unpacked" "$dir"
fi

printf 'export PATH=%q:"$PATH" npm_config_nodedir=%q\n' "$dir/bin" "$dir"
