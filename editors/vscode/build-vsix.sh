#!/usr/bin/env bash
# Builds the VS Code extension gamedsl-<version>.vsix in this folder (docs/editors.md, "VS Code"):
# installs the dependencies pinned by package-lock.json (npm ci), then packs the folder with
# vsce (a devDependency: pinned too). Needs Node 20 or later and npm.
set -euo pipefail
cd "$(dirname "$0")"
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
    echo "build-vsix.sh: vsce needs Node 20 or later, and this is Node $(node --version)" >&2
    exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
version="$(node -p 'require("./package.json").version')"
# The project has no licence file and no public repository yet: say so to vsce rather than be asked.
npx --no-install vsce package --skip-license --allow-missing-repository --out "gamedsl-$version.vsix"
echo "built $(pwd)/gamedsl-$version.vsix"
