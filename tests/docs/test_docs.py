"""The docs stay true of the tree: every path of the repository they name exists, and every
program they tell a user to run from build/bin exists and answers --help, and takes every option
a shell block gives it; every script they run from bench/, deploy/ or tools/ is there and
executable. Run by ctest (docs.paths_and_programs)."""

import json
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


# A task in the docs is a fenced block of task statements (docs/task-format.md). Each runs, on
# rfms-sim, as the HTML comment just above it says, and ends as it says:
#   <!-- example task: whole; ends completed -->
#   <!-- example task: each motion as `push` in examples/press.task; ends completed -->
#   <!-- example task: each motion as `down` in examples/line.task, scene deploy/scenes/wrist_table.textproto; ends refused -->
# "each motion as `M` in FILE": FILE's motion M is defined as each motion line of the block in turn
# (and its units line, if the block has one, is the block's).
STATEMENT = re.compile(r"^(units|transform|position|motion|move|wait|at|forget|track|jog|emergency-stop|stop)\b")
MARKER = re.compile(r"<!-- example task: (whole|each motion as `(\w+)` in (\S+?))(?:, scene (\S+))?; "
                    r"ends (completed|refused) -->\s*\n```\n$")


def fenced_blocks(text: str):
    """(line of the opening fence, its language, the body, the text before the fence) of each
    fenced block, fences paired in order."""
    lines = text.splitlines(keepends=True)
    at, opened = 0, None
    for i, ln in enumerate(lines):
        if ln.startswith("```"):
            if opened is None:
                opened = (i, ln[3:].strip(), at)
            else:
                start, lang, offset = opened
                yield start + 1, lang, "".join(lines[start + 1:i]), text[:offset]
                opened = None
        at += len(ln)


def task_blocks(text: str):
    """Each fenced block of task statements, with the marker just above it (None: none)."""
    for line, lang, body, before in fenced_blocks(text):
        statements = [ln.split("#")[0].strip() for ln in body.splitlines()]
        statements = [ln for ln in statements if ln]
        if not lang and statements and all(STATEMENT.match(ln) for ln in statements):
            yield line, body, MARKER.search(before[-400:] + "```\n")


TASKS = [(d.relative_to(ROOT).as_posix(), line, body, marker) for d in DOCS
         for line, body, marker in task_blocks(d.read_text())]


def runs_of(body: str, marker):
    """(label, task text, scene or None) for each run the marker asks of the block."""
    scene = marker.group(4)
    if marker.group(1) == "whole":
        return [("whole", body, scene)]
    name, base = marker.group(2), (ROOT / marker.group(3)).read_text()
    units = [ln for ln in body.splitlines() if ln.startswith("units")]
    if units:
        base = re.sub(r"^units .*$", units[0], base, count=1, flags=re.M)
    runs = []
    for ln in body.splitlines():
        m = re.match(r"^motion\s+(\w+)\s+(.*)$", ln)
        if m:
            task, n = re.subn(rf"^motion {name} .*$", f"motion {name} {m.group(2)}", base, count=1, flags=re.M)
            assert n == 1, f"{marker.group(3)} defines no motion {name}"
            runs.append((m.group(1), task, scene))
    return runs


@pytest.mark.parametrize("doc,line,body,marker", TASKS, ids=[f"{d}:{n}" for d, n, _, _ in TASKS])
def test_every_task_in_the_docs_runs_and_ends_as_they_say(doc, line, body, marker, tmp_path):
    assert marker, (f"{doc}:{line}: a task block without '<!-- example task: ...; ends ... -->' just above it: "
                    "say how it runs and how it ends")
    ends = marker.group(5)
    for label, task, scene in runs_of(body, marker):
        path = tmp_path / f"{label}.task"
        path.write_text(task)
        args = [str(BIN / "rfms-sim"), "--task", str(path), "--json"]
        if scene:
            args += ["--scene", str(ROOT / scene)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        where = f"{doc}:{line} ({label}): rfms-sim exit {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
        summary = json.loads(r.stdout)
        if ends == "completed":
            assert r.returncode == 0 and summary["completed"] and not summary["emergency"], where
        else:
            assert r.returncode == 1 and summary["refusals"], where


def test_the_task_check_finds_a_block_and_its_marker():
    text = ("<!-- example task: each motion as `push` in examples/press.task; ends completed -->\n```\n"
            "units mm deg N\nmotion a cartesian 3 0.5 force z -10   # down\n```\n\n```\nRFMS HOLD moves 1/1\n```\n")
    [(line, body, marker)] = list(task_blocks(text))
    assert line == 2 and marker.group(2) == "push"
    assert [b for _, _, b, _ in fenced_blocks("```sh\nx\n```\ntext\n```\nmove a b\n```\n")] == ["x\n", "move a b\n"]
    [(label, task, scene)] = runs_of(body, marker)
    assert label == "a" and "motion push cartesian 3 0.5 force z -10" in task and "units mm deg N" in task
    assert scene is None
    assert list(task_blocks("```\nmove home m\n```\n"))[0][2] is None
