#!/usr/bin/env bash
# Installs the npm packages the tests run against into .tools/npm, from the
# committed, exactly pinned scripts/npm/package.json and package-lock.json:
#   @modelcontextprotocol/server-everything  the reference MCP server
#   @modelcontextprotocol/conformance        the MCP conformance suite
#   node (the npm package)                   a Node 22 binary, which the
#                                            conformance suite needs
#   @playwright/mcp                          the Playwright MCP server
#                                            (browser tests)
# and Debian's chromium (/usr/bin/chromium), which the Playwright MCP server
# drives: when it is missing, it runs `apt-get update` once and
# `apt-get install -y chromium` as root; as another user it prints the
# command, and fails only under CI=true.
# It is idempotent: when the installed lock matches the committed one and
# Node 22 runs, it does nothing. Needs npm (any Node >= 18 to run npm).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src="$root/scripts/npm"
dest="$root/.tools/npm"
stamp="$dest/.installed-lock"

say() { echo "test-deps: $*"; }
die() { echo "test-deps: ERROR: $*" >&2; exit 1; }

command -v npm >/dev/null 2>&1 || die "npm is not installed; install Node.js and npm (e.g. apt-get install -y nodejs npm), then rerun scripts/test-deps.sh"
command -v node >/dev/null 2>&1 || die "node is not installed; install Node.js and npm, then rerun scripts/test-deps.sh"

node22="$dest/node_modules/.bin/node"

# Debian's chromium, for the Playwright MCP server (its own browser download
# does not work here).
chromium=/usr/bin/chromium
if [[ ! -x $chromium ]]; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
		say "installing Debian's chromium (apt-get update; apt-get install -y chromium)"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
		[[ -x $chromium ]] || die "apt-get install chromium finished but $chromium is missing"
	elif [[ ${CI:-} == true ]]; then
		die "$chromium is missing; run as root: apt-get update && apt-get install -y chromium"
	else
		say "WARNING: $chromium is missing; browser tests will skip. Install it as root: apt-get update && apt-get install -y chromium"
	fi
fi
if [[ -x $chromium ]]; then
	say "chromium: $("$chromium" --version 2>/dev/null || echo "$chromium")"
fi

check() {
	local v
	v=$("$node22" --version 2>/dev/null) || return 1
	[[ $v == v22.* ]] || return 1
	[[ -f $dest/node_modules/@modelcontextprotocol/server-everything/dist/index.js ]] || return 1
	[[ -f $dest/node_modules/@modelcontextprotocol/conformance/dist/index.js ]] || return 1
	[[ -f $dest/node_modules/@playwright/mcp/cli.js ]] || return 1
	echo "$v"
}

if [[ -f $stamp ]] && cmp -s "$stamp" "$src/package-lock.json" &&
	cmp -s "$dest/package.json" "$src/package.json" && v=$(check); then
	say "up to date in .tools/npm (node $v, lock unchanged); nothing to do"
	exit 0
fi

say "installing pinned npm packages into .tools/npm (npm $(npm --version), system node $(node --version))"
mkdir -p "$dest"
rm -f "$stamp"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
# npm ci removes any old node_modules and installs exactly the lock.
# package.json's allowScripts lets only the `node` package run its install
# script (it fetches the platform's Node binary package).
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)

v=$(check) || die "install finished but .tools/npm/node_modules/.bin/node --version does not print v22 (got: $("$node22" --version 2>&1 || true)), or a package is missing"
cp "$src/package-lock.json" "$stamp"
say "installed: node $v at .tools/npm/node_modules/.bin/node"
say "installed: $(cd "$dest" && npm ls --depth=0 2>/dev/null | awk 'NR > 1 {printf "%s ", $2}')"
