"""Writes fileserver.csv, the synthetic trace of scenarios/trace/scrub-under-app.toml.

Not a measurement: a small file server's mix made up to show the trace workload — 200
operations/s (Poisson), 70 % reads (8K, some 64K) with locality (60 % within 64 hot 1 MiB
regions), 27 % 8K buffered writes, 3 % fsyncs, over 16 GiB and 30 s. Seeded: running it
again writes the same file.
"""
import random

rng = random.Random(20261127)
hot = [rng.randrange(0, 16 << 30, 1 << 20) for _ in range(64)]
lines = ["# Synthetic example trace (make_fileserver_trace.py): time s, op, offset, size in bytes.",
         "time,op,offset,size"]
t = 0.0
for i in range(6000):
    t += rng.expovariate(200.0)
    r = rng.random()
    base = rng.choice(hot) if rng.random() < 0.6 else rng.randrange(0, 16 << 30, 1 << 20)
    off = base + rng.randrange(0, 1 << 20, 8192)
    if r < 0.70:
        lines.append(f"{t:.6f},R,{off},{8192 if rng.random() < 0.8 else 65536}")
    elif r < 0.97:
        lines.append(f"{t:.6f},W,{off},8192")
    else:
        lines.append(f"{t:.6f},F,0,0")
with open("fileserver.csv", "w") as f:
    f.write("\n".join(lines) + "\n")
