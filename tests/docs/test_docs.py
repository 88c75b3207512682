"""The docs stay true of the tree: every path of the repository they name exists, and every
program they tell a user to run from build/bin exists and answers --help, and takes every option
a shell block gives it; every script they run from bench/, deploy/ or tools/ is there and
executable. Run by ctest (docs.paths_and_programs)."""

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
    """Repository paths written in backticks: `docs/force.md`, `common/ik_opw.hpp`, `runlog/`."""
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


def command_lines(text: str):
    """Each build/bin program a shell block runs, with the words that follow it on its line (up to
    a pipe, a redirection, `&&`, `;` or a comment), continuation lines joined."""
    for block in re.findall(r"```(?:sh|bash)\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for m in re.finditer(r"(?:^|[\s;(=|&])build/bin/([A-Za-z0-9_.-]+)((?:\s+[^\s|;&>#<]+)*)", line):
                yield m.group(1), m.group(2).split()


def help_of(program: str, words):
    """The program's --help, and its subcommand's when a word is one ("rfms-client run",
    "rfms-model --robot FILE demo")."""
    exe = str(BIN / program)
    text = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL).stdout
    sub = re.search(r"^Subcommands:\n((?:\s+\S.*\n?)+)", text, re.M)
    names = set(re.findall(r"^\s+([a-z][\w-]*)", sub.group(1), re.M)) if sub else set()
    for w in words:
        if w in names:
            text += subprocess.run([exe, w, "--help"], capture_output=True, text=True, timeout=60,
                                   stdin=subprocess.DEVNULL).stdout
            break
    return text


def unknown_options(program: str, words):
    """The options a command line gives that the program's help does not list."""
    given = []
    for w in words:
        if w == "--":  # what follows goes to another program
            break
        m = re.match(r"^(--[A-Za-z0-9][A-Za-z0-9_-]*)", w)
        if m and not PLACEHOLDER.search(w.split("=")[0]):
            given.append(m.group(1))
    if not given:
        return []
    listed = set(re.findall(r"(?<![\w-])(--[A-Za-z0-9][A-Za-z0-9_-]*)", help_of(program, words)))
    return [o for o in given if o not in listed]


COMMANDS = sorted({(d.relative_to(ROOT).as_posix(), program, " ".join(words))
                   for d in DOCS for program, words in command_lines(d.read_text())})


@pytest.mark.parametrize("doc,program,words", COMMANDS, ids=lambda x: x if isinstance(x, str) else "")
def test_every_option_a_shell_block_gives_a_program_is_one_it_takes(doc, program, words):
    if not (BIN / program).is_file():
        pytest.fail(f"{doc}: build/bin/{program} is not built")
    wrong = unknown_options(program, words.split())
    assert not wrong, f"{doc}: 'build/bin/{program} {words}': {program} --help lists no {wrong}"


@pytest.mark.parametrize("script", [p for p in NAMED if not p.startswith("build/bin/")])
def test_every_script_a_page_runs_is_there(script):
    path = ROOT / script
    assert path.exists(), f"{script} is named in the docs but is not in the tree"
    if path.is_file():
        assert os.access(path, os.X_OK), f"{script} is not executable"


FOLDER_READMES = sorted(ROOT.glob("*/README.md"))


def listed_files(text: str):
    """The names a folder's README lists in the first column of its table: `link_frame`,
    `rfms_task.h`, `examples/`."""
    for row in re.findall(r"^\| *(`[^|]+)\|", text, re.M):
        for name in re.findall(r"`([^`]+)`", row):
            yield name


@pytest.mark.parametrize("readme", FOLDER_READMES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_a_folders_readme_lists_is_there(readme):
    folder = readme.parent
    missing = sorted({n for n in listed_files(readme.read_text()) if not exists(str((folder / n).relative_to(ROOT)))})
    assert not missing, f"{readme.relative_to(ROOT)} lists files its folder does not hold: {missing}"


SCRIPTS = sorted(p.relative_to(ROOT).as_posix() for d in ("deploy", "bench", "tools") for p in (ROOT / d).iterdir()
                 if p.is_file() and os.access(p, os.X_OK))


def handles_help(text: str) -> bool:
    """A script that answers --help before it does anything: bash through deploy/lib/usage.sh,
    Python through argparse, node by looking for it first."""
    return "lib/usage.sh" in text or "argparse" in text or 'process.argv[2] === "--help"' in text


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_answers_help_and_does_nothing_else(script):
    text = (ROOT / script).read_text()
    # Not run unless it handles --help: a script that does not would start its job (a build, the
    # test suite) on the word.
    assert handles_help(text), f"{script} does not answer --help (source deploy/lib/usage.sh first thing)"
    r = subprocess.run([str(ROOT / script), "--help"], capture_output=True, text=True, timeout=30,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0 and r.stdout.strip(), f"{script} --help: exit {r.returncode}\n{r.stdout}{r.stderr}"


def test_the_check_catches_a_wrong_path_and_a_missing_program():
    text = "See `tests/common/no_such_test.cpp` and run:\n```sh\nbuild/bin/rfms-no-such-tool --x\n```\n"
    assert [p for p in quoted_paths(text) if not exists(p)] == ["tests/common/no_such_test.cpp"]
    assert "build/bin/rfms-no-such-tool" in programs(text)
    assert not (BIN / "rfms-no-such-tool").exists()
    assert list(quoted_paths("`runlog/mcap_writer` and `RUN_DIR/run.mcap`")) == ["runlog/mcap_writer"]


def test_the_option_check_catches_an_option_a_program_does_not_take():
    text = "```sh\nbuild/bin/rfms-sim --no-such-option 3 \\\n  --json > out.json\n```\n"
    [(program, words)] = list(command_lines(text))
    assert (program, words) == ("rfms-sim", ["--no-such-option", "3", "--json"])
    assert unknown_options(program, words) == ["--no-such-option"]
    assert unknown_options("rfms-client", ["run", "--example", "--", "--nothing"]) == []


def test_the_readme_check_catches_a_file_that_is_gone():
    text = "| file | what |\n|---|---|\n| `link_frame` | a frame |\n| `rfms_task.h`, `rfms_task` | C |\n"
    assert list(listed_files(text)) == ["link_frame", "rfms_task.h", "rfms_task"]
    assert not exists("net_bridge/client_link")
