#!/bin/sh
# calib/run-on-device.sh: calibrates dsec on a GPU machine where dsec's
# build dependencies cannot be installed (docs/calibration.md, "On a GPU
# machine without the build libraries"). Such a machine has CUDA, cuBLAS
# and NCCL but not GSL, libyaml or SQLite, so dsec-calib is built on a
# build host and carried over:
#
#   1. on the build host:  sh calib/run-on-device.sh bundle [BUILD_DIR]
#      Builds dsec-calib with CUDA and NCCL (no MPI, no verbs: one GPU, no
#      RDMA device needed) in BUILD_DIR (default
#      ${TMPDIR:-/tmp}/dsec-calib-device) and puts it, with the libraries
#      the GPU machine lacks, in .calib-device/ at the repository root
#      (keep it out of git: echo /.calib-device/ >> .git/info/exclude).
#   2. on the GPU machine, in a copy of the tree with .calib-device/:
#        OUT=DIR sh calib/run-on-device.sh device
#      Runs gemm, hbm and pcie (p2p and nccl need 2 GPUs; with one they are
#      skipped), imports the raw logs, fits, and writes under $OUT (default
#      ./calib-device-out): raw/gemm.log raw/hbm.log raw/pcie.log calib.db
#      fit.txt h200-measured.yaml nvidia-smi.txt. The whole run takes about
#      a minute on an H200.
#   3. back on the build host: copy the files and compare predictions, e.g.
#        dsec step llama-3.1-8b --gpu h200 --decode-seqs 64 --context 2048
#        dsec step llama-3.1-8b --gpu h200 --decode-seqs 64 --context 2048 \
#            --calibration calib/profiles/h200-measured.yaml
#
# The script only reads the card's state (nvidia-smi --query-gpu); it never
# changes clocks, power or MIG settings.
set -u

bundle() {
    top=$(cd "$(dirname "$0")/.." && pwd)
    bd=${1:-${TMPDIR:-/tmp}/dsec-calib-device}
    mkdir -p "$bd" || exit 1
    cd "$bd" || exit 1
    if [ ! -f Makefile ]; then
        "$top/configure" --without-mpi --without-verbs >configure.log 2>&1 ||
            { echo "configure failed: see $bd/configure.log" >&2; exit 1; }
    fi
    make -j1 dsec-calib >make.log 2>&1 ||
        { tail -20 make.log >&2; exit 1; }
    grep -q '^#define HAVE_CUDA 1' config.h ||
        { echo "this build has no CUDA: install the CUDA Toolkit" >&2; exit 1; }
    dest="$top/.calib-device"
    rm -rf "$dest"
    mkdir -p "$dest/lib" || exit 1
    cp dsec-calib "$dest/" || exit 1
    # Everything outside glibc, libstdc++ and CUDA (the image has those).
    for l in $(ldd dsec-calib | awk '/=> \// { print $3 }'); do
        case $l in
        */cuda*|*/libc.so*|*/libm.so*|*/libstdc++*|*/libgcc_s*|*/ld-linux*|\
        */libpthread*|*/libdl.so*|*/librt.so*) ;;
        *) cp -L "$l" "$dest/lib/" || exit 1 ;;
        esac
    done
    ls -l "$dest" "$dest/lib"
    echo "bundle ready; on the device: sh calib/run-on-device.sh device (carry .calib-device)"
}

device() {
    out=${OUT:-./calib-device-out}
    b=.calib-device
    mkdir -p "$out/raw" || exit 1
    [ -x "$b/dsec-calib" ] ||
        { echo "no $b/dsec-calib: run 'sh calib/run-on-device.sh bundle' here first and carry .calib-device" >&2; exit 1; }
    # CUDA's libraries: the toolkit's, else the Python wheels' (nvidia-*).
    libs=$b/lib
    for name in libcudart.so.13 libcublasLt.so.13 libnccl.so.2; do
        d=$(find /usr/local /usr/lib /opt /usr/local/lib/python3* \
                 /usr/lib/python3* -name "$name*" 2>/dev/null | head -n 1)
        [ -n "$d" ] && libs="$libs:$(dirname "$d")"
    done
    export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
        --format=csv >"$out/nvidia-smi.txt" 2>&1
    cat "$out/nvidia-smi.txt"
    start=$(date +%s)
    timeout 420 "$b/dsec-calib" run --out "$out/raw" --db "$out/calib.db" \
        --gpu h200
    st=$?
    echo "dsec-calib run: exit $st after $(( $(date +%s) - start )) s"
    "$b/dsec-calib" fit --db "$out/calib.db" --gpu h200 \
        --out "$out/h200-measured.yaml" >"$out/fit.txt" 2>&1
    fst=$?
    cat "$out/fit.txt"
    echo "dsec-calib fit: exit $fst"
    [ $st -eq 0 ] && [ $fst -eq 0 ]
}

case ${1:-} in
bundle) shift; bundle "$@" ;;
device) device ;;
*) echo "usage: $0 bundle [BUILD_DIR] | device" >&2; exit 2 ;;
esac
