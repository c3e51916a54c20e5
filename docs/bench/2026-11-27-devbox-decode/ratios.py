import re,sys,statistics as st
rows={}
for line in open(sys.argv[1]):
    m=re.search(r'round=(\d+) load=([\d.]+) bin=(\S+) threads=(\d).*median ([\d.]+) s',line)
    if m: rows[(m.group(3),int(m.group(1)),int(m.group(4)))]=float(m.group(5))
for b in sorted({k[0] for k in rows}):
    r=[rows[(b,n,1)]/rows[(b,n,2)] for n in sorted({k[1] for k in rows if k[0]==b}) if (b,n,2) in rows and (b,n,1) in rows]
    print(f"{b}: 1-thread/2-thread wall per round {[round(x,2) for x in r]} median {st.median(r):.2f}")
