#!/bin/sh
# `sh scripts/install-node-line.sh 22|24`: makes scripts/node<line>/node_modules what that folder's
# lockfile pins (Node <line> from the npm registry's package for this platform, and better-sqlite3
# 13.2.0), with `npm ci` only when it was installed from another lockfile or not at all, then prints
# the path of that Node's executable. No install script runs: better-sqlite3 loads its prebuilt
# binary, never one compiled here (node-gyp would build it for the Node running npm, not this one).
# npm, on the machine's Node 20, warns that better-sqlite3 13 asks for Node 22 or later (EBADENGINE):
# it is installed for the Node beside it.
set -eu
line=${1:?usage: sh scripts/install-node-line.sh 22|24}
dir="$(cd "$(dirname "$0")" && pwd)/node$line"
say() { echo "install-node-line: $*" >&2; }
if [ ! -f "$dir/package-lock.json" ]; then
  say "no Node line $line: scripts/node<line>/package-lock.json exists for $(cd "$dir/.." && ls -d node[0-9]* | sed 's/node//' | tr '\n' ' ')"
  exit 2
fi
stamp="$dir/node_modules/.installed-from.package-lock.json"
if ! cmp -s "$dir/package-lock.json" "$stamp"; then
  say "installing Node $line and better-sqlite3 into scripts/node$line/node_modules (npm ci)"
  npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund >&2
  cp "$dir/package-lock.json" "$stamp"
fi
node="$dir/node_modules/.bin/node"
if [ ! -x "$node" ]; then
  say "the npm registry has no Node $line package for $(uname -s) $(uname -m): scripts/node$line/package.json lists the platforms it has"
  exit 1
fi
echo "$node"
