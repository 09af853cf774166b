"""Speed and memory of jurybox's Krippendorff's alpha next to the `krippendorff` package (PyPI).

Everything is measured in one run on the same data. Point estimates only (n_resamples=0), since
the package computes no interval; our bootstrap is timed separately.

(a) 1,000,000 continuous ratings: 200,000 units x 5 raters, 10% missing, about 900,000
    distinct values; interval and ratio. Our time and peak memory. The package is not run: its
    first step builds an (n_units, n_raters, V) boolean array and its coincidence step
    (n_units, V, V) float64 arrays; the script prints their sizes.
(b) 1,000,000 ratings on a 1-5 scale (200,000 x 5, 10% missing): nominal, ordinal, interval
    (and ratio): our time against the package's, and the ratio.
(c) 1,000,000 ratings on a 0-100 integer scale, as 20,000 units x 50 raters (10% missing):
    time and peak memory, ours against the package's. The package needs n_units x 101 x 101
    float64 arrays (1.6 GB each here); at 200,000 units x 5 raters each would be 16 GB, more
    than this machine holds, so (c) uses the wider shape.

Time: time.perf_counter, best of --repeats runs after one warm-up run (the package's first run
on (c) is several times slower while the operating system maps its large arrays). Memory:
tracemalloc peak of one further run (NumPy reports its buffers to tracemalloc).

Usage: python benchmarks/krippendorff_speed.py [--repeats 5] [--skip-package]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from jurybox.stats.krippendorff import krippendorff_alpha

GIB = 2.0 ** 30


def best_time(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_bytes(fn: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def with_missing(x: np.ndarray, rng: np.random.Generator, share: float = 0.1) -> np.ndarray:
    x = x.astype(np.float64)
    x[rng.random(x.shape) < share] = np.nan
    return x


def ours(x: np.ndarray, level: str, n_resamples: int = 0) -> Callable[[], float]:
    return lambda: krippendorff_alpha(x, level=level, n_resamples=n_resamples).alpha


def fmt_mem(n: float) -> str:
    return f"{n / GIB:8.2f} GiB" if n >= GIB else f"{n / 2 ** 20:8.1f} MiB"


def part_a(rng: np.random.Generator, repeats: int) -> None:
    n_raters, n_units = 5, 200_000
    truth = rng.normal(50.0, 10.0, n_units)
    x = with_missing(truth + rng.normal(0.0, 5.0, (n_raters, n_units)), rng)
    data = {"interval": x, "ratio": np.exp(x / 20.0)}  # ratio needs values >= 0
    print(f"(a) continuous: {n_raters} raters x {n_units:,} units, 10% missing")
    for level, values in data.items():
        pairable = values[:, (~np.isnan(values)).sum(axis=0) >= 2]
        v = np.unique(pairable[~np.isnan(pairable)]).size
        t = best_time(ours(values, level), repeats)
        mem = peak_bytes(ours(values, level))
        alpha = ours(values, level)()
        print(f"    {level:9s} alpha={alpha:.6f}  ours {t * 1000:8.1f} ms  peak {fmt_mem(mem)}"
              f"  ({v:,} distinct values)")
    first = n_units * n_raters * v / GIB
    coinc = n_units * float(v) ** 2 * 8 / GIB
    print(f"    package: not run; it would allocate an (n_units, n_raters, V) bool array of "
          f"{first:,.0f} GiB,\n             then (n_units, V, V) float64 arrays of {coinc:.3g} GiB")
    start = time.perf_counter()
    res = krippendorff_alpha(x, level="interval", n_resamples=1000)
    low, high = res.confidence_interval
    print(f"    interval with the default 1,000 bootstrap resamples: "
          f"{time.perf_counter() - start:.2f} s, 95% CI ({low:.4f}, {high:.4f})")
    start = time.perf_counter()
    res = krippendorff_alpha(data["ratio"], level="ratio", n_resamples=1000)
    print(f"    ratio with the default 1,000 bootstrap resamples: "
          f"{time.perf_counter() - start:.2f} s")


def compare(x: np.ndarray, levels: tuple[str, ...], repeats: int, package_repeats: int,
            skip_package: bool, memory: bool) -> None:
    kd = None if skip_package else __import__("krippendorff")
    for level in levels:
        t_ours = best_time(ours(x, level), repeats)
        alpha = ours(x, level)()
        line = f"    {level:9s} alpha={alpha:.6f}  ours {t_ours * 1000:8.1f} ms"
        if memory:
            m_ours = peak_bytes(ours(x, level))
            line += f" peak {fmt_mem(m_ours)}"
        if kd is not None:
            def theirs(level: str = level) -> float:
                return kd.alpha(x, level_of_measurement=level)
            t_pkg = best_time(theirs, package_repeats)
            assert abs(theirs() - alpha) < 1e-9, (level, theirs(), alpha)
            line += f" | package {t_pkg * 1000:8.1f} ms | {t_pkg / t_ours:6.1f}x faster"
            if memory:
                m_pkg = peak_bytes(theirs)
                line += f" | package peak {fmt_mem(m_pkg)} | {m_pkg / m_ours:6.1f}x less memory"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs, best is kept")
    parser.add_argument("--skip-package", action="store_true", help="time jurybox only")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    part_a(rng, args.repeats)

    n_raters, n_units = 5, 200_000
    truth = rng.integers(1, 6, n_units)
    x = with_missing(np.clip(truth + rng.integers(-1, 2, (n_raters, n_units)), 1, 5), rng)
    print(f"(b) 1-5 scale: {n_raters} raters x {n_units:,} units, 10% missing")
    compare(x, ("nominal", "ordinal", "interval", "ratio"), args.repeats, args.repeats,
            args.skip_package, memory=False)

    n_raters, n_units = 50, 20_000
    truth = rng.integers(0, 101, n_units)
    x = with_missing(np.clip(truth + np.rint(rng.normal(0, 8, (n_raters, n_units))), 0, 100), rng)
    print(f"(c) 0-100 scale: {n_raters} raters x {n_units:,} units, 10% missing")
    compare(x, ("nominal", "ordinal", "interval", "ratio"), args.repeats, 2,
            args.skip_package, memory=True)


if __name__ == "__main__":
    main()
