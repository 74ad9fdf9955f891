#!/usr/bin/env bash
# Installs what the project needs and is missing; safe to run again. Usage: scripts/install.sh [runtime|test]
#   runtime: Debian packages the server uses, and the npm packages (which bring Node 24).
#   test:    the same, plus what the tests need (a PostgreSQL server).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-runtime}"
export npm_config_loglevel=error npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# The local executor: bubblewrap, setpriv/nsenter/losetup (util-linux), mkfs.ext4 (e2fsprogs), ip (iproute2),
# nft (nftables), debootstrap and its keyring for the default image, lxcfs for the sandboxes' own /proc figures.
# Document parsing: tesseract with orientation
# and script detection (osd) and the language data of the world's common scripts for OCR of scans and images (the
# codes are parsing_options.ocr_languages' list in packages/contract); heif-convert (libheif-examples) for HEIC;
# headless LibreOffice with Python-UNO for the office pool that converts DOC, XLS, PPT, Keynote, RTF and
# OpenDocument files. OCI images: skopeo pulls, umoci unpacks.
ocr_languages=(eng deu fra spa por ita nld pol tur ces ron hun swe dan nor fin ind msa vie rus ukr ell ara fas urd
  heb hin ben tam tha chi-sim chi-sim-vert chi-tra chi-tra-vert jpn jpn-vert kor kor-vert)
runtime_debs=(ca-certificates bubblewrap util-linux e2fsprogs iproute2 nftables debootstrap debian-archive-keyring openssh-client lxcfs
  tesseract-ocr tesseract-ocr-osd "${ocr_languages[@]/#/tesseract-ocr-}" libheif-examples
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno
  skopeo umoci)
# Tests: PostgreSQL for the store suite; sshd and sshpass for the SSH tests of a daemon on the host; the fonts
# test documents are laid out in (DejaVu for the OCR pages and office conversions, Liberation as a second family
# with other metrics, which extraction and chart reading must not depend on, Noto for every script the OCR tests
# draw, CJK included); the reference registry, htpasswd and busybox-static (an image with no libc) for the OCI
# image tests; Chromium, which the web console's tests drive headless; poppler-utils (pdftotext, the baseline of the PDF evaluations; pdftoppm for the
# OCR scripts bench); curl for the raw-upload tests (what users type); httpx and rich for the public platform's
# Python SDK, which the documents conformance suite runs (with a python3 that has pydantic 2: Debian 12's
# python3-pydantic is 1.10).
test_debs=(postgresql openssh-server sshpass fonts-dejavu-core fonts-liberation fonts-noto-core fonts-noto-cjk
  docker-registry apache2-utils busybox-static chromium poppler-utils curl python3-httpx python3-rich)
debs=("${runtime_debs[@]}")
[ "$what" = test ] && debs+=("${test_debs[@]}")

# npm packages when node_modules is absent or older than the lock file. `npm install` with the committed lock
# installs its exact versions; `npm ci` is not used because it insists on lock entries for other platforms'
# optional binaries (Biome's), which the registry reachable here does not serve. The system Node runs it and
# node-gyp builds node-pty's addon (python3, make, g++): when those are here already, it needs nothing apt-get
# installs and runs while apt-get does; otherwise after it.
npm_install() {
  echo "installing npm packages"
  npm install --no-fund --no-audit
}
npm_job=
npm_after=
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  if command -v python3 >/dev/null && command -v make >/dev/null && command -v g++ >/dev/null; then
    npm_install &
    npm_job=$!
  else
    npm_after=1
  fi
fi

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

# npm install, started above or now: a failure of it fails the install.
[ -z "$npm_job" ] || wait "$npm_job"
[ -z "$npm_after" ] || npm_install

# The web console's static files (packages/console/dist, served at / by the server), built when missing or older
# than their sources (the console's app, and the SDK and contract it bundles).
console_index=packages/console/dist/index.html
if [ ! -f "$console_index" ] ||
  [ -n "$(find packages/console/app packages/console/src/build.ts packages/sdk/src packages/contract/src package-lock.json -newer "$console_index" -print -quit)" ]; then
  echo "building the web console"
  node_modules/.bin/node packages/console/src/build.ts
fi
