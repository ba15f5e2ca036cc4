#!/usr/bin/env bash
# Installs the Debian packages the project needs, if they are missing.
# Safe to run repeatedly; needs root (or sudo) only when something is missing.
set -euo pipefail
# bubblewrap: the default code sandbox; python3-seccomp: its worker's syscall
# filter (libseccomp's binding for the system python3 the sandbox runs); docker.io and debootstrap: the docker
# sandbox (a private dockerd and an image built without a registry);
# chromium + chromium-driver: the WebShop site's browser test; postgresql: the
# planners' shared run store (tests start a throwaway cluster of their own);
# nodejs + npm: the TypeScript environment server (any Node already on PATH will do).
packages=(bubblewrap python3-seccomp docker.io debootstrap chromium chromium-driver postgresql)
missing=()
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "warning: cannot install ${missing[*]} (no apt-get); install them by hand" >&2
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing system packages: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
