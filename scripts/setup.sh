#!/usr/bin/env bash
# Installs everything onnxexp needs to build and test: Debian packages with
# apt, and onnxruntime-node with npm into node_modules/ (git-ignored).
# Quick when everything is already there: it only calls apt for what is missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(cmake gcc g++ make pkg-config protobuf-c-compiler libprotobuf-c-dev
      libonnx-dev check python3-torch python3-onnx python3-numpy python3-torchvision
      clang libclang-rt-dev)
# Node.js may come from another repository (NodeSource ships npm inside its
# nodejs); ask apt for Debian's only when the commands are absent.
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# onnxruntime-node: its install script downloads GPU files and fails offline;
# the CPU runtime ships inside the package, so skip the script.
if [ ! -f "$top/tests/node/node_modules/onnxruntime-node/package.json" ]; then
  echo "setup: installing onnxruntime-node" >&2
  (cd "$top/tests/node" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
