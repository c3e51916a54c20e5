#!/bin/bash
# Runs every case with two staged binaries (A, B: directories holding pairhist and its libraries)
# into the same output directory name, one after the other, and compares every file: byte for
# byte, except pairhist.h5 whose objects carry modification times (the count of differing bytes).
A=${A:-base}; B=${B:-new}
D=/work/wt/scat3/data
cd /tmp/scat3-after/cmp 2>/dev/null || { mkdir -p /tmp/scat3-after/cmp && cd /tmp/scat3-after/cmp; }
W="$D/spce_water.xtc --top $D/spce_water.gro --species O=OW --species H=HW1,HW2"
N="$D/nacl_dodecahedron.xtc --top $D/nacl_dodecahedron.gro"
printf '0\n0.5\n1\n2.5\n7\n12.25\n30\n' > q.txt
cases=(
 "xray|run $W --rmax 1.2 --nbins 240 --scattering xray"
 "xray_sq|run $W --rmax 1.2 --nbins 240 --scattering xray --structure-factor"
 "interval|run $W --rmax 1.2 --nbins 240 --scattering xray --structure-factor --interval 30"
 "neutron|run $W --rmax 1.0 --nbins 100 --scattering neutron --deuterate 0.5 --structure-factor --window none"
 "centre|run $W --rmax 1.2 --nbins 240 --scattering xray --within-bin centre --precision single --q-max 30 --nq 301"
 "angstrom|run $W --units angstrom --rmax 12 --nbins 120 --scattering xray --structure-factor --q-file q.txt"
 "default_rmax|run $W --nbins 150 --scattering xray --element O=O --element H=H"
 "sphere|run $W --sphere \"resid 1-5,0.8\" --bin 0.004 --scattering xray"
)
[ -n "$NACL" ] && cases+=("nacl|run $N --species Na=NA --species Cl=CL --species OW=OW --species H=HW1,HW2 --rmax 1.0 --nbins 200 --scattering xray --structure-factor")
status=0
for c in "${cases[@]}"; do
  name=${c%%|*}; args=${c#*|}
  rm -rf "$name" "$name.A"
  LD_LIBRARY_PATH=../$A; export LD_LIBRARY_PATH; eval ../$A/pairhist $args -o $name -q 2>$name.A.err; echo "rc $?" >> $name.A.err
  mv $name $name.A
  LD_LIBRARY_PATH=../$B; export LD_LIBRARY_PATH; eval ../$B/pairhist $args -o $name -q 2>$name.B.err; echo "rc $?" >> $name.B.err
  cmp -s $name.A.err $name.B.err || { echo "$name: stderr differs"; diff $name.A.err $name.B.err | head -5; status=1; }
  files=$(cd $name.A && ls | sort); [ "$files" == "$(cd $name && ls | sort)" ] || { echo "$name: other files"; status=1; }
  for f in $files; do
    if [ "$f" == pairhist.h5 ]; then
      n=$(cmp -l $name.A/$f $name/$f | wc -l); s1=$(stat -c %s $name.A/$f); s2=$(stat -c %s $name/$f)
      [ "$s1" == "$s2" ] && [ "$n" -le 100 ] || { echo "$name/$f: $n bytes differ, sizes $s1 $s2"; status=1; }
    else
      cmp -s $name.A/$f $name/$f || { echo "$name/$f differs"; status=1; }
    fi
  done
  echo "$name: $(echo $files | wc -w) files compared"
done
exit $status
