"""run.py: executes a notebook top to bottom, as the tests do.

    .venv/bin/python notebooks/run.py [NOTEBOOK] [--out EXECUTED.ipynb]

NOTEBOOK defaults to notebooks/yardstick.ipynb. It runs in the current
directory (where yardstick.ipynb looks for results/), with a kernel of this
interpreter's ipykernel: run it with the .venv's Python (`make pyenv`). It
prints what the notebook printed, and exits 1 when a cell raises or when no
output is a PNG image (2 on usage). --out writes the executed notebook,
outputs included (the committed notebook has none).

Jupyter, IPython and matplotlib keep config, kernel connection files and
caches in the home directory by default; here they all go to a temporary
directory, removed at the end.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from traitlets.config import Config


def main():
    ap = argparse.ArgumentParser(description="Execute a notebook with the .venv's kernel.")
    ap.add_argument("notebook", nargs="?", default=str(Path(__file__).with_name("yardstick.ipynb")))
    ap.add_argument("--out", help="write the executed notebook here")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per cell (default 300)")
    args = ap.parse_args()
    nb = nbformat.read(args.notebook, as_version=4)

    with tempfile.TemporaryDirectory(prefix="yardstick-notebook-") as tmp:
        for var in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR", "MPLCONFIGDIR"):
            os.environ[var] = os.path.join(tmp, var.lower())
        os.environ["JUPYTER_PLATFORM_DIRS"] = "1"
        os.environ["MPLBACKEND"] = "Agg"
        # The kernel: ipykernel under this interpreter, as a kernel spec in
        # the temporary data directory (searched before any other).
        spec = Path(os.environ["JUPYTER_DATA_DIR"], "kernels", "yardstick-venv")
        spec.mkdir(parents=True)
        (spec / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "yardstick (.venv)",
            "language": "python",
        }))
        # ipc: the kernel talks over Unix sockets in the temporary runtime
        # directory, not over TCP ports. The client owns the kernel and
        # shuts it down when the last cell has run or one has failed.
        config = Config()
        config.KernelManager.transport = "ipc"
        client = NotebookClient(nb, config=config, kernel_name="yardstick-venv", timeout=args.timeout,
                                startup_timeout=120, resources={"metadata": {"path": os.getcwd()}})
        start = time.monotonic()
        try:
            client.execute()
            error = None
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
            error = e
        elapsed = time.monotonic() - start

    if args.out:
        nbformat.write(nb, args.out)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    for o in outputs:
        if o.output_type == "stream":
            sys.stdout.write(o.text)
    if error is not None:
        plain = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # the traceback without terminal colours
        print(f"run.py: {args.notebook}: a cell failed after {elapsed:.1f} s:\n{plain}", file=sys.stderr)
        return 1
    pngs = sum("image/png" in o.get("data", {}) for o in outputs)
    code = sum(c.cell_type == "code" for c in nb.cells)
    print(f"run.py: {args.notebook}: {code} code cells ran in {elapsed:.1f} s; {pngs} PNG figures")
    if pngs == 0:
        print(f"run.py: {args.notebook}: no output is an image/png", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
