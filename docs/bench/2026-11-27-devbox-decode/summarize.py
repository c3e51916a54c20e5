import re,sys,statistics as st
rows={}
for line in open(sys.argv[1]):
    m=re.search(r'load=([\d.]+) bin=(\S+) threads=(\d) faults_6_passes=(\d+).*median ([\d.]+) s.*cpu ([\d.]+) s',line)
    if not m: continue
    load,b,t,f,w,c=m.groups()
    gb=float(re.search(r'frames, ([\d.]+) MB',line).group(1))*1e-3
    rows.setdefault((b,int(t)),[]).append((float(load),int(f)/6,float(w),float(c)))
for k,v in sorted(rows.items()):
    w=st.median(x[2] for x in v); c=st.median(x[3] for x in v)
    print(f"{k[0]:24s} t={k[1]} n={len(v)} load {min(x[0] for x in v):.1f}-{max(x[0] for x in v):.1f} wall_med {w:.3f} (all {[x[2] for x in v]}) cpu_med {c:.3f} busy {c/w:.2f} GB/s {gb/w:.3f} faults/pass {st.median(x[1] for x in v):.0f}")
