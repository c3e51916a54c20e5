#!/usr/bin/env bash
# XTC decoding alone (`pairhist bench --decode`) with the baseline's program (.gpu-base/, see
# compare-device-run.sh pack-base) and this tree's (.gpu/), interleaved, on the GPU machine's
# cores: W1 replicated DECODE_REPLICAS (16: 10.9M atoms) per direction, DECODE_FRAMES (20)
# frames, for each thread count in DECODE_THREADS (1 4 8 16), DECODE_ROUNDS (3) rounds.
#   there: bash scripts/decode-compare-device-run.sh   (carry [".gpu", ".gpu-base"])
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=decode-compare
title="pairhist XTC decoding, baseline against this tree"
# shellcheck source=device-run-common.sh
source "$repo/scripts/device-run-common.sh"
unpack_baseline
"$ph" synth --case W1 --replicas "${DECODE_REPLICAS:-16}" --frames "${DECODE_FRAMES:-20}" \
  -o "$work/w1" -q >/dev/null
xtc=$work/w1/W1.xtc
cat "$xtc" >/dev/null  # in the page cache, as in the issue's measurements
for round in $(seq "${DECODE_ROUNDS:-3}"); do
  for t in ${DECODE_THREADS:-1 4 8 16}; do
    for s in base new; do
      bin=$ph
      libs=$stage/lib
      if [ $s = base ]; then bin=$base_stage/bin/pairhist libs=$base_stage/lib:$stage/lib; fi
      printf 'round %s threads %s %s: ' "$round" "$t" "$s" | tee -a "$log"
      LD_LIBRARY_PATH="$libs:/usr/local/cuda/lib64" "$bin" bench --decode "$xtc" --threads "$t" \
        --repeats 1 2>&1 | grep -E "GB/s|s per frame|frames/s|decod" | head -2 | tr '\n' ' ' |
        tee -a "$log"
      echo | tee -a "$log"
    done
  done
done
echo "decode-compare: done" | tee -a "$log"
