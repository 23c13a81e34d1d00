#!/usr/bin/env bash
# Here (not on the GPU host): make a bundle that carries patchkit's own needs inside it, so one device
# call can take the bundle and the checkout together (64 MiB per call, the checkout included).
#   bench/gpu/slim_bundle.sh SRC_BUNDLE_DIR DST_BUNDLE_DIR [WHEEL_DIR]
# SRC is ../shared/gpu/build_bundle.py's output (site.tar.xz). The copy drops jedi and parso (only
# IPython's tab completion imports them, lazily; sglang/utils.py imports IPython.display alone) and
# unpacks the cp312 wheels of WHEEL_DIR (default .whl: libcst, pyflakes; the host has pyyaml and
# packaging) into the site, so the host scripts need no .whl in the same call.
# Session 29: .gpu-bundle16 (61.8 MB) -> .gpu-bundle16s (60.7 MB), carried with a 3.98 MiB checkout.
set -euo pipefail
src=$1; dst=$2; whl=${3:-.whl}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
xz -dc "$src/site.tar.xz" | tar x -C "$tmp"
rm -rf "$tmp"/jedi "$tmp"/jedi-*.dist-info "$tmp"/parso "$tmp"/parso-*.dist-info
for w in "$whl"/libcst-*.whl "$whl"/pyflakes-*.whl; do unzip -q -o "$w" -d "$tmp"; done   # wheels are zips
mkdir -p "$dst"
(cd "$tmp" && tar cf - .) | xz -T2 -9 > "$dst/site.tar.xz.part"
mv "$dst/site.tar.xz.part" "$dst/site.tar.xz"
ls -l "$dst/site.tar.xz"
