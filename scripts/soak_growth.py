"""What both soak checks measure: the median of the first and of the last tenth of a series of
resident-memory readings, and whether it grew beyond what the soak allows, max(4 MiB, 3%).
Imported by soak_one_process.py and soak_processes.py."""
import statistics


def mib(b):
    return b / 2**20


def first_and_last_tenth(values):
    """Medians of the first and the last tenth of `values` (at least one value each)."""
    tenth = max(1, len(values) // 10)
    return statistics.median(values[:tenth]), statistics.median(values[-tenth:])


def grew_too_much(first, last):
    return last - first > max(4 * 2**20, 0.03 * first)
