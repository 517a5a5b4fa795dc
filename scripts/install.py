"""Install the pinned environment into the running interpreter's environment (a venv).

    python scripts/install.py                 # what `make venv` runs with .venv/bin/python
    TORCH=cuda python scripts/install.py      # Linux: PyTorch's CUDA build from PyPI instead

The same command on Linux, macOS and Windows (run it with the venv's python):

1. ``pip install -r requirements.txt`` (the exact lock). On Linux with ``TORCH=cpu`` (the
   default) PyTorch's CPU wheel index is added with ``--extra-index-url``, so that the pin
   ``torch==2.13.0`` resolves to ``2.13.0+cpu`` (about 200 MB) rather than PyPI's CUDA build
   (about 2.7 GB with 25 unpinned NVIDIA packages). The index is probed first (5 s): where it
   cannot be reached (a closed network, CI) the lock is installed from the configured index
   alone, and a line says where torch came from. On macOS and Windows PyPI's wheels are CPU
   builds already; no extra index is used.
2. ``pip install -e . --no-deps``: the package, its dependencies already pinned above.
3. Reports the torch build that was installed.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CPU_INDEX = os.environ.get("TORCH_CPU_INDEX", "https://download.pytorch.org/whl/cpu")


def reachable(url: str, timeout: float = 5.0) -> bool:
    try:
        urllib.request.urlopen(url.rstrip("/") + "/torch/", timeout=timeout).close()
        return True
    except Exception:  # any failure (DNS, refused, TLS, 404) means: do not use it
        return False


def pip_command(torch: str, system: str, index_ok: bool) -> tuple[list[str], str]:
    """The pip command for the lock and a sentence on where torch comes from."""
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "-r", str(ROOT / "requirements.txt")]
    if torch not in ("cpu", "cuda"):
        raise ValueError(f"TORCH must be 'cpu' or 'cuda', got {torch!r}")
    if system != "Linux":
        return cmd, f"{system}: torch from the default index (its wheels are CPU builds)"
    if torch == "cuda":
        return cmd, "TORCH=cuda: torch from the default index (PyPI: the CUDA build)"
    if index_ok:
        return cmd + ["--extra-index-url", CPU_INDEX], f"torch from PyTorch's CPU index {CPU_INDEX}"
    return cmd, (
        f"PyTorch's CPU index {CPU_INDEX} is unreachable: torch from the configured "
        "index (on plain PyPI this is the CUDA build; see README)"
    )


def main() -> int:
    torch = os.environ.get("TORCH", "cpu").lower()
    system = platform.system()
    index_ok = system == "Linux" and torch == "cpu" and reachable(CPU_INDEX)
    cmd, where = pip_command(torch, system, index_ok)
    print("install:", where, flush=True)
    subprocess.run(cmd, check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", str(ROOT), "--no-deps"], check=True)
    out = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__, 'cuda' if torch.version.cuda else 'cpu')"],
        capture_output=True,
        text=True,
    )
    print("install: torch", out.stdout.strip() or out.stderr.strip()[-300:], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
