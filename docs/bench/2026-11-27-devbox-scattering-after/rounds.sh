#!/bin/bash
# Interleaved rounds on the bundled water sample (101 frames, 2652 atoms; the work after the
# counting depends on bins, pairs and q, not on atoms): binaries A (before) and B (after), each
# without --scattering, with --scattering xray, with --scattering xray --structure-factor.
# One line per run: wall (date around the process), the summary's `time`, user and system CPU
# seconds (/usr/bin/time), the load average before it.
cd /tmp/scat3-after
D=/work/wt/scat3/data
common="run $D/spce_water.xtc --top $D/spce_water.gro --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 --overwrite"
runs=()
for bin in ${BINS:-base new3}; do for v in none xray xray_sq; do runs+=("$bin:$v"); done; done
declare -A extra=([none]="" [xray]="--scattering xray" [xray_sq]="--scattering xray --structure-factor")
n=${#runs[@]}
for r in $(seq 1 ${ROUNDS:-15}); do
  for k in $(seq 0 $((n - 1))); do
    item=${runs[$(( (k + r) % n ))]}; bin=${item%%:*}; v=${item#*:}
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    out=$(LD_LIBRARY_PATH=$bin /usr/bin/time -f "TIMES %e %U %S" $bin/pairhist $common -o r-$bin-$v ${extra[$v]} 2>&1)
    t1=$(date +%s.%N)
    inner=$(echo "$out" | sed -n 's/^  time *: \([0-9.]*\) s.*/\1/p')
    set -- $(echo "$out" | grep "^TIMES")
    echo "$r $bin $v wall=$(echo "$t1 - $t0" | bc) time=$inner user=$3 sys=$4 load=$load"
  done
done
