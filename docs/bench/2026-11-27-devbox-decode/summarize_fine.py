import re,sys,json,statistics as st
res={}
for line in open(sys.argv[1]):
    m=re.match(r'round=(\d+) load=(\S+) bin=(\S+) one=(\{.*?\}) two=(\{.*?\}) pair_a=(\{.*?\}) pair_b=(\{.*?\})$',line.strip())
    if not m: continue
    b=m.group(3); one,two,pa,pb=[json.loads(m.group(i)) for i in (4,5,6,7)]
    d=res.setdefault(b,{'one':[],'two':[],'ratio':[],'ceiling':[],'cpu1':[],'cpu2':[],'load':[]})
    d['one'].append(one['seconds_median']); d['two'].append(two['seconds_median'])
    d['ratio'].append(one['seconds_median']/two['seconds_median'])
    d['ceiling'].append(2*one['seconds_median']/max(pa['seconds_median'],pb['seconds_median']))
    d['cpu1'].append(one['cpu_seconds_median']); d['cpu2'].append(two['cpu_seconds_median']); d['load'].append(float(m.group(2)))
for b,d in res.items():
    m=st.median
    print(f"{b}: n={len(d['one'])} load {min(d['load'])}-{max(d['load'])} | 1 thread {m(d['one']):.3f} s ({86.016/m(d['one'])/1000:.3f} GB/s, cpu {m(d['cpu1']):.3f}) | 2 threads {m(d['two']):.3f} s ({86.016/m(d['two'])/1000:.3f} GB/s, cpu {m(d['cpu2']):.3f}, busy {m(d['cpu2'])/m(d['two']):.2f}) | per-round 1t/2t median {m(d['ratio']):.2f} [{min(d['ratio']):.2f}-{max(d['ratio']):.2f}] | ceiling (2 procs) median {m(d['ceiling']):.2f}")
