#!/usr/bin/env bash
# Installs what the project needs and is missing; safe to run again. Usage: scripts/install.sh [runtime|test]
#   runtime: Debian packages the server uses, and the npm packages (which bring Node 24).
#   test:    the same, plus what the tests need (a PostgreSQL server).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-runtime}"
export npm_config_loglevel=error npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# The local executor: bubblewrap, setpriv/nsenter/losetup (util-linux), mkfs.ext4 (e2fsprogs), ip (iproute2),
# nft (nftables), debootstrap and its keyring for the default image, lxcfs for the sandboxes' own /proc figures. Document parsing: tesseract with English
# and orientation data for OCR of scans and images; headless LibreOffice with Python-UNO for the office pool that
# converts DOC, XLS, PPT, Keynote, RTF and OpenDocument files.
runtime_debs=(ca-certificates bubblewrap util-linux e2fsprogs iproute2 nftables debootstrap debian-archive-keyring openssh-client lxcfs
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno)
# Tests: PostgreSQL for the store suite; sshd and sshpass for the SSH tests of a daemon on the host; a font the
# OCR tests draw their clean pages in.
test_debs=(postgresql openssh-server sshpass fonts-dejavu-core)
debs=("${runtime_debs[@]}")
[ "$what" = test ] && debs+=("${test_debs[@]}")

missing=()
for pkg in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "missing Debian packages (run as root to install them): ${missing[*]}" >&2
  fi
fi

# npm packages when node_modules is absent or older than the lock file. `npm install` with the committed lock
# installs its exact versions; `npm ci` is not used because it insists on lock entries for other platforms'
# optional binaries (Biome's), which the registry reachable here does not serve.
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm packages"
  npm install --no-fund --no-audit
fi
