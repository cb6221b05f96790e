#!/bin/sh
# `npm run test:node22` / `npm run test:node24` (`sh scripts/test-on-node-line.sh 22|24 [vitest
# arguments]`): the repository's `npm test` on Node <line> from the npm registry
# (scripts/install-node-line.sh), with better-sqlite3 13.2.0 in place of the workspace's 12.x, which
# the lockfile keeps for Node 20 (`npm test`, CI). Every Node process of the run is that Node: its
# folder comes first on PATH (npm, tsc, eslint, knip and vitest start as `node`, and vitest's workers
# and the `sendline` processes the tests spawn as `process.execPath`), and each takes
# scripts/redirect-better-sqlite3.mjs through NODE_OPTIONS. It prints the Node and better-sqlite3 it
# runs first, and last how many processes loaded better-sqlite3 and which versions they ran.
set -u
line=${1:?usage: sh scripts/test-on-node-line.sh 22|24 [vitest arguments]}
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
node="$(sh "$root/scripts/install-node-line.sh" "$line")" || exit 1
loads="$(mktemp)"
trap 'rm -f "$loads"' EXIT

PATH="$(dirname "$node"):$PATH"
NODE_OPTIONS="--import=\"$root/scripts/redirect-better-sqlite3.mjs\"${NODE_OPTIONS:+ $NODE_OPTIONS}"
export PATH NODE_OPTIONS
cd "$root" || exit 1

# the banner: better-sqlite3 asked for by name from the repository's root, as the stores do
node -e '
  const Database = require("better-sqlite3")
  const sqlite = new Database(":memory:").prepare("select sqlite_version() as v").get().v
  console.log(`test-on-node-line: Node ${process.version} (${process.execPath}), better-sqlite3 ` +
    `${require("better-sqlite3/package.json").version} from ${require.resolve("better-sqlite3")}, SQLite ${sqlite}`)
' || exit 1

BETTER_SQLITE3_LOADS="$loads" npm test -- "$@"
status=$?

# one line per process that loaded better-sqlite3: "<pid> node <version> better-sqlite3 <version>"
echo "test-on-node-line: $(wc -l <"$loads" | tr -d ' ') processes loaded better-sqlite3, as:" \
  "$(cut -d' ' -f2- "$loads" | sort | uniq -c | sed 's/^ *//' | paste -sd ';' -)"
exit $status
