#!/bin/sh
# Before `npm test` (its `pretest`): the docs page test drives Debian's Chromium (/usr/bin/chromium)
# through playwright-core, never a browser Playwright downloads. When it is missing, install it
# with apt-get where this user may (root, or sudo without a password); otherwise say how, once.
# Without it the test is skipped with one loud line, and fails under CI=true.
set -u
browser=/usr/bin/chromium
[ -x "$browser" ] && exit 0

say() { echo "test-browser: $*" >&2; }
if ! command -v apt-get >/dev/null 2>&1; then
  say "no Chromium at $browser and no apt-get here: install Chromium there for the docs page test (it is skipped otherwise, and fails under CI=true)"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo -n"
else
  say "no Chromium at $browser: run 'sudo apt-get install chromium' for the docs page test (it is skipped otherwise, and fails under CI=true)"
  exit 0
fi
say "no Chromium at $browser: installing Debian's chromium (apt-get install chromium) for the docs page test…"
if { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1; then
  say "installed $("$browser" --version 2>/dev/null || echo chromium)"
else
  say "!!!!! could not install chromium (apt-get install chromium): the docs page test is skipped, and fails under CI=true !!!!!"
fi
exit 0
