#!/usr/bin/env python3
"""Runs the runnable examples of the README and of every page of docs/, so none can rot.

Usage: readme_examples.py STORESIM_BINARY [--no-package | --package-only]

Which fenced blocks run is said by their info string:
  ```sh                    shell commands, run with `bash -e` (each line must succeed)
  ```python                a Python program, run with this interpreter (CI's venv, which has
                           Apple's app-store-server-library)
  ```storesim              a scenario: written to examples/readme-N.storesim and run with
                           `storesim run` (paths are relative to it, as in Scripts/)
  ```swift file=PATH       a file of the example app package (Package.swift, a test); once
                           all are read, the package is built and tested with `swift test`
                           against this checkout as a path dependency, printing no compiler
                           warning (skipped with --no-package: it builds storesim from
                           scratch, minutes; --package-only runs only it, so CI can build
                           it beside other steps)
Every other block (```, ```swift, ```console, ```yaml, ```json) is an illustration and is not run.

A sh, python or storesim block that truly cannot run here says why in its info string:
  ```sh not-run: REASON
It is listed as not run, with its reason, in every run's output; keep such blocks few (today:
none). Anything a block needs that a reader has (a session, a key) it makes itself.

The README runs first, then every page of docs/ in name order; each page starts afresh.
Each sh block starts in a fresh folder holding links to Configurations/ and Scripts/ and an
empty docs/images/ (a reader tries each example on its own, in a clone); python and storesim blocks run in the folder of the sh block
before them (the session it made). `storesim` is on the PATH (the binary given), HOME is a
folder of the run's own, and a block that runs longer than 5 minutes fails. In shell blocks, `swift run storesim ARGS` runs that
binary and `swift test` / `swift build` are left to CI's own steps (said on stderr).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every page of docs/: a page's sh, python and storesim blocks run unless marked `not-run: REASON`.
DOC_PAGES = sorted(name for name in os.listdir(os.path.join(ROOT, "docs")) if name.endswith(".md"))
FENCE = re.compile(r"^```(\S*)(.*)$")
RUNNABLE = {"sh", "python", "storesim"}

SWIFT_SHIM = """#!/usr/bin/env bash
# `swift` inside README examples: `swift run storesim ARGS` is the storesim under test; building
# and testing the package is what CI's own steps do.
if [ "$1" = run ] && [ "$2" = storesim ]; then shift 2; exec storesim "$@"; fi
echo "(readme examples: 'swift $*' is left to CI's own build and test steps)" >&2
"""


def blocks(text):
    """(language, info, body, line) for every fenced block."""
    found, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            start, language, info = i + 1, m.group(1), m.group(2).strip()
            j = start
            while j < len(lines) and lines[j] != "```":
                j += 1
            found.append((language, info, "\n".join(lines[start:j]) + "\n", start))
            i = j + 1
        else:
            i += 1
    return found


def main():
    binary = os.path.abspath(sys.argv[1])
    build_package = "--no-package" not in sys.argv
    package_only = "--package-only" in sys.argv
    work = tempfile.mkdtemp(prefix="storesim-readme-")
    bin_dir = os.path.join(work, ".bin")
    os.makedirs(bin_dir)
    os.symlink(binary, os.path.join(bin_dir, "storesim"))
    with open(os.path.join(bin_dir, "swift"), "w") as f:
        f.write(SWIFT_SHIM)
    os.chmod(os.path.join(bin_dir, "swift"), 0o755)
    # Installing (Scripts/install.sh) goes to a home of its own, with the binary under test.
    home = os.path.join(work, "home")
    os.makedirs(home)
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], HOME=home, STORESIM_BINARY=binary)
    env.pop("STORESIM_SESSION", None)

    pages = ["README.md"] + [os.path.join("docs", name) for name in DOC_PAGES]
    failures, ran, package_files, not_run = [], 0, {}, []
    for page in pages:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            ran += run_page(page, f.read(), work, binary, env, failures, package_files, package_only, not_run)

    if package_files:
        where = "the example package (```swift file=...)"
        if build_package:
            ran += 1
            code = run_package(work, package_files)
            print(f"{where}: {'ok' if code == 0 else f'FAILED (exit {code})'}")
            if code != 0:
                failures.append(where)
        else:
            print(f"{where}: skipped (--no-package)")
    print(f"readme examples: {ran} run, {len(failures)} failed, {len(not_run)} marked not-run"
          + "".join(f"\n  not run: {where}: {reason}" for where, reason in not_run))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


def run_page(page, text, work, binary, env, failures, package_files, package_only=False, not_run=None):
    """Runs one page's blocks; returns how many ran. Package files are collected, not run (nor
    anything else with package_only); blocks marked `not-run: REASON` are listed in not_run."""
    ran = 0
    folder = fresh_folder(work, page, 0)
    for language, info, body, line in blocks(text):
        where = f"{page}:{line}"
        if package_only and not (language == "swift" and info.startswith("file=")):
            continue
        if language in RUNNABLE and info.startswith("not-run"):
            reason = info[len("not-run"):].lstrip(":").strip()
            if not reason:
                print(f"{where}: ```{language} block: FAILED (not-run needs a reason: not-run: REASON)")
                failures.append(where)
            elif not_run is not None:
                not_run.append((where, reason))
            continue
        if language == "sh":
            folder = fresh_folder(work, page, line)
            result = run([["bash", "-e", "-c", body]], folder, env)
        elif language == "python":
            result = run([[sys.executable, "-c", body]], folder, env)
        elif language == "storesim":
            path = os.path.join(folder, "examples", f"example-{line}.storesim")
            with open(path, "w") as f:
                f.write(body)
            result = run([[binary, "run", path]], folder, env)
        elif language == "swift" and info.startswith("file="):
            package_files[info[len("file="):]] = body
            continue
        else:
            continue
        ran += 1
        status = "ok" if result.returncode == 0 else f"FAILED (exit {result.returncode})"
        print(f"{where}: ```{language} block: {status}")
        if result.returncode != 0:
            failures.append(where)
            sys.stdout.write(result.stdout[-3000:])
            sys.stdout.write(result.stderr[-3000:])
    return ran


def fresh_folder(work, page, line):
    """A folder for the examples from line `line` of `page` on, as a checkout's root looks."""
    folder = os.path.join(work, page.replace("/", "-") + f"-at-line-{line}")
    os.makedirs(os.path.join(folder, "examples"))
    os.makedirs(os.path.join(folder, "docs", "images"))  # pictures a page writes, as in a clone
    for name in ["Configurations", "Scripts"]:  # README paths are from the checkout's root
        os.symlink(os.path.join(ROOT, name), os.path.join(folder, name))
    return folder


def run(commands, cwd, env):
    """Runs a block's command; a block that hangs fails after 5 minutes."""
    try:
        return subprocess.run(commands[0], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return subprocess.CompletedProcess(commands[0], 124, out, err + "\n(timed out after 300 s)\n")


def run_package(work, files):
    """Writes the example app package next to a `storesim` folder (this checkout) and tests it."""
    os.symlink(ROOT, os.path.join(work, "storesim"))
    app = os.path.join(work, "App")
    for path, body in files.items():
        full = os.path.join(app, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(body)
    # The resource the README's test target copies: the app's configuration, here Apple's sample.
    for target in os.listdir(os.path.join(app, "Tests")):
        shutil.copy(
            os.path.join(ROOT, "Configurations", "AppleSample.storekit"), os.path.join(app, "Tests", target, "Store.storekit"))
    os.makedirs(os.path.join(app, "Sources", "App"), exist_ok=True)
    if not os.listdir(os.path.join(app, "Sources", "App")):
        with open(os.path.join(app, "Sources", "App", "App.swift"), "w") as f:
            f.write("public enum App {}\n")
    result = subprocess.run(["swift", "test"], cwd=app, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stdout.write(result.stdout[-4000:])
        sys.stdout.write(result.stderr[-4000:])
        return result.returncode
    # The app's build compiles storesim from scratch as a dependency: it must print no warning.
    warnings = sorted({line.strip() for line in (result.stdout + result.stderr).splitlines() if "warning:" in line})
    if warnings:
        sys.stdout.write("the example package's build printed warnings:\n" + "\n".join(warnings[:40]) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    main()
