"""The docs stay true of the tree: every path of the repository they name exists, and every
program they tell a user to run from build/bin exists and answers --help; every script they run
from bench/, deploy/ or tools/ is there and executable. Run by ctest (docs.paths_and_programs)."""

import os
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(os.environ.get("RFMS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BIN = pathlib.Path(os.environ.get("RFMS_BIN_DIR", ROOT / "build" / "bin"))

# The pages a user reads: the front door, the figures, docs/, and each folder's README.
DOCS = sorted([ROOT / "README.md", ROOT / "BENCHMARKS.md", ROOT / "ACCURACY.md", *(ROOT / "docs").glob("*.md"),
               *ROOT.glob("*/README.md")])
# Top-level folders of the repository (a path naming one of them is a claim about the tree).
TOPS = sorted(p.name for p in ROOT.iterdir()
              if p.is_dir() and not p.name.startswith(".") and p.name not in ("build", "build-fuzz", "runs"))
PLACEHOLDER = re.compile(r"[*<>{}$]|RUN_DIR|NAME|\.\.\.")


def quoted_paths(text: str):
    """Repository paths written in backticks: `docs/force.md`, `common/ik_puma.hpp`, `runlog/`."""
    for quoted in re.findall(r"`([^`\n]+)`", text):
        for word in quoted.split():
            word = word.strip("(),;:'\"")
            m = re.match(r"^([A-Za-z0-9_.-]+)/[A-Za-z0-9_./-]*$", word)
            if m and m.group(1) in TOPS and not PLACEHOLDER.search(word):
                yield word


def exists(path: str) -> bool:
    """A path, or the stem of a file pair (`runlog/mcap_writer` for .hpp and .cpp)."""
    p = ROOT / path
    return p.exists() or any(p.parent.glob(p.name + ".*"))


def programs(text: str):
    """What a user is told to run, in a shell block or in backticks."""
    shell = "\n".join(re.findall(r"```(?:sh|bash)\n(.*?)```", text, re.S)) + "\n" + \
        "\n".join(re.findall(r"`([^`\n]+)`", text))
    return set(re.findall(r"(?:^|[\s;(=|&`])((?:build/bin|bench|deploy|tools)/[A-Za-z0-9_.-]+)(?![/\w.-])", shell,
                          re.M))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_page_names_exists(doc):
    missing = sorted({p for p in quoted_paths(doc.read_text()) if not exists(p)})
    assert not missing, f"{doc.relative_to(ROOT)} names paths that are not in the tree: {missing}"


NAMED = sorted({p for d in DOCS for p in programs(d.read_text())})


@pytest.mark.parametrize("program", [p for p in NAMED if p.startswith("build/bin/")])
def test_every_built_program_a_page_runs_answers_help(program):
    exe = BIN / program.removeprefix("build/bin/")
    assert exe.is_file(), f"{program} is named in the docs but the build has no such program"
    r = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 0 and r.stdout.strip(), f"{program} --help: exit {r.returncode}\n{r.stderr}"


@pytest.mark.parametrize("script", [p for p in NAMED if not p.startswith("build/bin/")])
def test_every_script_a_page_runs_is_there(script):
    path = ROOT / script
    assert path.exists(), f"{script} is named in the docs but is not in the tree"
    if path.is_file():
        assert os.access(path, os.X_OK), f"{script} is not executable"


def test_the_check_catches_a_wrong_path_and_a_missing_program():
    text = "See `tests/common/no_such_test.cpp` and run:\n```sh\nbuild/bin/rfms-no-such-tool --x\n```\n"
    assert [p for p in quoted_paths(text) if not exists(p)] == ["tests/common/no_such_test.cpp"]
    assert "build/bin/rfms-no-such-tool" in programs(text)
    assert not (BIN / "rfms-no-such-tool").exists()
    assert list(quoted_paths("`runlog/mcap_writer` and `RUN_DIR/run.mcap`")) == ["runlog/mcap_writer"]
