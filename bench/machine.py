"""Describe the machine a benchmark ran on (printed with every result and stored in its JSON).

Shared machines are noisy, so a figure without its machine is not comparable to anything; every
benchmark prints this block and `bench/RESULTS.md` quotes it.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any


def _cpu_model() -> str:
    # /proc/cpuinfo is the only portable-enough source on Linux; platform.processor() is often "".
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    except (OSError, ValueError):
        pass
    return None


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return f"{line.split('=', 1)[1].strip().strip(chr(34))} ({platform.release()})"
    except OSError:
        pass
    return platform.platform()


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def machine_info() -> dict[str, Any]:
    """CPU model, cores (usable by this process, and online), RAM, Python, numpy, OS, date."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count() or 0
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "cores_usable": usable,
        "cores_online": os.cpu_count(),
        "ram_gib": _ram_gib(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "numpy": _version("numpy"),
        "scipy": _version("scipy"),
        "dp_accounting": _version("dp-accounting"),
        "opendp": _version("opendp"),
        "os": _os_name(),
        "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }


def format_machine(info: dict[str, Any]) -> str:
    """One line a human can paste into RESULTS.md."""
    libs = ", ".join(
        f"{name} {info[key]}"
        for name, key in (
            ("numpy", "numpy"),
            ("dp-accounting", "dp_accounting"),
            ("opendp", "opendp"),
        )
        if info.get(key)
    )
    return (
        f"{info['date']} · {info['cpu']} · {info['cores_usable']} cores · "
        f"{info['ram_gib']} GiB RAM · Python {info['python']} · {libs} · {info['os']} · "
        f"load {info['load_average_1m']}"
    )


if __name__ == "__main__":
    print(format_machine(machine_info()))
