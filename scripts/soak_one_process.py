"""One process's resident memory over many runs (called by scripts/soak): `dmlrun bench` runs the
sample ITERATIONS times while VmRSS is sampled every 20 ms; the first and last tenth of the
steady part are compared, and growth beyond max(4 MiB, 3%) fails.

    python3 scripts/soak_one_process.py DMLRUN ITERATIONS
"""
import json, subprocess, sys, time

from soak_growth import first_and_last_tenth, grew_too_much, mib

binary, iterations = sys.argv[1], int(sys.argv[2])
proc = subprocess.Popen([binary, "bench", "models/squeezenet1.1.onnx", "--generate", "random", "--warmup", "10",
                         "--iterations", str(iterations), "--json", "-"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
samples = []
while proc.poll() is None:
    try:
        with open(f"/proc/{proc.pid}/status") as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
        samples.append((time.monotonic(), rss * 1024))
    except (FileNotFoundError, StopIteration, ProcessLookupError):
        pass
    time.sleep(0.02)
out, _ = proc.communicate()
assert proc.returncode == 0, f"bench exited {proc.returncode}"
report = json.loads(out)
# The timed runs are the samples after RSS first reaches its plateau (session and warm-up done):
# take the last 80% of the samples as the steady part and compare its first and last tenth.
steady = samples[len(samples) // 5:]
first, last = first_and_last_tenth([r for _, r in steady])
growth = last - first
print(f"  {len(samples)} samples; steady RSS first tenth {mib(first):.1f} MiB, last tenth {mib(last):.1f} MiB, "
      f"growth {mib(growth):+.2f} MiB, ratio last/first {last / first:.3f}; max {mib(max(r for _, r in samples)):.1f} MiB; "
      f"peak RSS reported by dmlrun {mib(report['models'][0]['peak_rss_bytes']):.1f} MiB")
if grew_too_much(first, last):
    sys.exit(f"soak: resident memory grew by {mib(growth):.2f} MiB over {iterations} runs")
