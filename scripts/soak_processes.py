"""Many processes' peak resident memory (called by scripts/soak): the first and last tenth of
the per-process peaks are compared (growth beyond max(4 MiB, 3%) fails), and no stray file may
be left in the output folder.

    python3 scripts/soak_processes.py LEFTOVER_FILES PEAK_KIB...
"""
import statistics, sys

from soak_growth import first_and_last_tenth, grew_too_much, mib

leftovers, peaks = int(sys.argv[1]), [int(p) * 1024 for p in sys.argv[2:]]
first, last = first_and_last_tenth(peaks)
growth = last - first
print(f"  peak RSS per process: first tenth {mib(first):.1f} MiB, last tenth {mib(last):.1f} MiB, "
      f"growth {mib(growth):+.2f} MiB, ratio last/first {last / first:.3f}; min {mib(min(peaks)):.1f}, max {mib(max(peaks)):.1f}, "
      f"stdev {mib(statistics.pstdev(peaks)):.2f} MiB; files besides the outputs left in the folder: {leftovers}")
if grew_too_much(first, last):
    sys.exit(f"soak: per-process peak RSS grew by {mib(growth):.2f} MiB over {len(peaks)} processes")
if leftovers:
    sys.exit(f"soak: {leftovers} stray files in the output folder")
