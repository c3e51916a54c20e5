import sys, statistics, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 7: continue
    kv = dict(x.split('=') for x in f[3:])
    key = (f[1], f[2])
    wall, time, cpu = float(kv['wall']), float(kv['time']), float(kv['user']) + float(kv['sys'])
    rows[key]['wall'].append(wall); rows[key]['time'].append(time)
    rows[key]['after'].append(wall - time); rows[key]['cpu'].append(cpu)
def med(v): return statistics.median(v)
print(f"{'binary':8} {'variant':8} {'n':>3} {'wall':>14} {'time':>7} {'after (wall-time)':>26} {'cpu':>20}")
for key in sorted(rows):
    r = rows[key]
    a = sorted(r['after']); c = sorted(r['cpu']); n = len(a)
    q = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
    print(f"{key[0]:8} {key[1]:8} {n:3} {med(r['wall']):7.3f} s {med(r['time']):7.3f} {med(a)*1e3:7.0f} ms ({q(a,.25)*1e3:4.0f}-{q(a,.75)*1e3:4.0f} IQR) {med(c):6.3f} s ({q(c,.25):.2f}-{q(c,.75):.2f})")
for b in sorted({k[0] for k in rows}):
    for v in ('xray', 'xray_sq'):
        if (b, v) in rows and (b, 'none') in rows:
            print(f"{b} {v} - none: after {1e3*(med(rows[(b,v)]['after'])-med(rows[(b,'none')]['after'])):+.0f} ms, cpu {1e3*(med(rows[(b,v)]['cpu'])-med(rows[(b,'none')]['cpu'])):+.0f} ms, time {1e3*(med(rows[(b,v)]['time'])-med(rows[(b,'none')]['time'])):+.0f} ms")
