"""How many instructions a check executes: a figure the machine's load does not move.

Usage:
    python benchmarks/instructions.py PATH... [--python EXE] [--libcst] [--processes]

Runs `mcplint check --no-cache --jobs 1 PATH...` in one process under valgrind's
callgrind (about 40 times slower than a plain run: pick a package or two, not the
whole corpus) and prints the instructions it executed (callgrind's "Ir"). On the
shared 2-CPU machines this project is measured on, wall and CPU times of the same
run vary by a quarter; the instruction count of the same code varies by about 0.1 %,
so two versions of a change compare by it in one run each (then confirm the whole
change with whole-process timings of the two versions run in turn and compared
pair by pair, which time what users wait for). Hash randomisation
is fixed (PYTHONHASHSEED=0) so that set and dict orders repeat. Needs valgrind.

``--libcst``: also the instructions of the speed bar's yardstick, a process that
LibCST-parses every `.py` file under the same paths (``run.py``'s parse-only
script and file list), and the ratio of the two. The ratio of times moves with
the machine (0.64x to 0.77x for the same code on two days); this one does not.
LibCST's parse of the whole corpus takes about 40 minutes under callgrind.

``--processes``: the command as users run it instead (`python -m mcplint check --no-cache
--jobs 1 ...`): the parent process and its worker, each counted, and their sum. The
in-process count leaves out what the two processes each do (start, import, send and receive
the tasks and results); the sum is what the speed bar's one core executes. Count with the
package's bytecode compiled, as an installation has it (with PYTHONDONTWRITEBYTECODE set and
no `__pycache__`, each run compiles the modules it imports: about 1.8 G instructions).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from run import PARSE_SCRIPT, collect_files

# The check in this process: the engine's worker process would not be counted.
IN_PROCESS = """
import sys
from mcplint.engine import runner

class InProcess(runner.Workers):
    def lint(self, tasks):
        for task in tasks:
            yield task, runner._lint_task(task)

runner.Workers = InProcess
from mcplint.cli import main
sys.argv[0] = "mcplint"
main()
"""


def instructions(python: str, paths: list[str]) -> int:
    return _counted([python, "-c", IN_PROCESS, "check", "--no-cache", "--jobs", "1", "--exit-zero", "--quiet", *paths])


def process_instructions(python: str, paths: list[str]) -> list[int]:
    """Each process's instructions of `python -m mcplint check --no-cache --jobs 1 PATH...`."""
    command = [python, "-m", "mcplint", "check", "--no-cache", "--jobs", "1", "--exit-zero", "--quiet", *paths]
    return _counted_each(command)


def libcst_instructions(python: str, paths: list[str]) -> int:
    """The instructions of LibCST parsing every `.py` file under ``paths``, in one process."""
    files = [str(found) for path in map(Path, paths) for found in (collect_files(path) if path.is_dir() else [path])]
    with tempfile.TemporaryDirectory() as directory:
        listed = Path(directory, "files.txt")
        listed.write_text("\n".join(files), encoding="utf-8")
        return _counted([python, "-c", PARSE_SCRIPT, "libcst", str(listed)])


def _counted(command: list[str]) -> int:
    return sum(_counted_each(command, children=False))


def _counted_each(command: list[str], children: bool = True) -> list[int]:
    """Callgrind's count of each process of ``command`` (its forked children too)."""
    traced = ["--trace-children=yes"] if children else []
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *traced, *command]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    found = [int(count.replace(",", "")) for count in re.findall(r"Collected\s*:\s*([\d,]+)", done.stderr)]
    if done.returncode != 0 or not found:
        raise SystemExit(f"callgrind run failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="files or directories to check")
    parser.add_argument("--python", default=sys.executable, help="the interpreter with mcplint installed")
    parser.add_argument("--libcst", action="store_true", help="also LibCST's parse of the same files, and the ratio")
    parser.add_argument("--processes", action="store_true", help="the command as users run it: its processes, summed")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt install valgrind)")
    if args.processes:
        each = process_instructions(args.python, args.paths)
        checked = sum(each)
        print(f"{checked:,} instructions in {len(each)} processes ({', '.join(f'{count:,}' for count in each)})")
    else:
        checked = instructions(args.python, args.paths)
        print(f"{checked:,} instructions")
    if args.libcst:
        parsed = libcst_instructions(args.python, args.paths)
        print(f"{parsed:,} instructions in LibCST's parse of the same files: {checked / parsed:.3f}x")


if __name__ == "__main__":
    main()
