#!/bin/sh
# Installs what tsume needs to build and test on Debian 12 (uses sudo when not root).
# node and npm (for the KIF read-back test) are installed only when missing, since
# a node from another source ships its own npm and conflicts with Debian's.
set -e
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
PKGS="build-essential cmake ninja-build pkg-config clang liblmdb-dev lmdb-utils libcmocka-dev libzstd-dev libmicrohttpd-dev libjansson-dev curl"
# python3: some end-to-end tests and tools/bench-check.sh read JSON with it
PKGS="$PKGS python3"
# MPI mode of enumerate (optional: without it the build leaves it out and its test is skipped)
PKGS="$PKGS libopenmpi-dev openmpi-bin"
# pictures: xmllint for the SVG test, CJK fonts for the diagrams, chromium for the book test
PKGS="$PKGS libxml2-utils fonts-noto-cjk chromium"
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y $PKGS
