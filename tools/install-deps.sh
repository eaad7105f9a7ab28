#!/bin/sh
# Installs what tsume needs to build and test on Debian 12 (uses sudo when not root).
set -e
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y \
  build-essential cmake ninja-build pkg-config clang \
  liblmdb-dev lmdb-utils libcmocka-dev libzstd-dev nodejs npm
