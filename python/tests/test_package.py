"""The installed package: its typing stubs match the modules, and it is the release build."""

import ast
import inspect
import pathlib
import subprocess
import sys

import gpu_movegen
import gpu_movegen.env


def stub_path(name="__init__"):
    return pathlib.Path(gpu_movegen.__file__).with_name(name + ".pyi")


def stub_items(tree):
    """The names a stub's module body defines, and its classes' members."""
    names, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets)
        elif isinstance(node, ast.ImportFrom) and node.module is None:
            names.update(alias.asname for alias in node.names if alias.asname)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
    return names, members


def test_the_package_is_typed():
    assert stub_path().is_file()
    assert stub_path("env").is_file()
    assert stub_path().with_name("py.typed").is_file()


def public(names):
    """The names but the stub's own: `__all__` and private, typing-only ones."""
    return {name for name in names if name.startswith("__") or not name.startswith("_")} - {"__all__"}


def test_the_stubs_name_every_public_item_and_no_other():
    names, _ = stub_items(ast.parse(stub_path().read_text()))
    assert public(names) == set(gpu_movegen.__all__)
    for name in gpu_movegen.__all__:
        assert hasattr(gpu_movegen, name), name


def test_the_environment_stubs_name_every_public_item_method_and_property():
    names, members = stub_items(ast.parse(stub_path("env").read_text()))
    assert public(names) == set(gpu_movegen.env.__all__)
    for name in gpu_movegen.env.__all__:
        item = getattr(gpu_movegen.env, name)
        if inspect.isclass(item):
            attributes = {member for member in dir(item) if not member.startswith("__")}
            attributes |= {"__len__"} & set(dir(item))
            assert members[name] == attributes, name


def test_mypy_s_stubtest_finds_the_stubs_true_to_the_compiled_modules(tmp_path):
    # stubtest imports the package and its env module and compares every
    # name, signature, default, property and class with the stubs.
    result = subprocess.run(
        # PEP 800's @disjoint_base is newer than Python 3.9's typing; @final
        # on every class says more (no subclass at all).
        [sys.executable, "-m", "mypy.stubtest", "gpu_movegen", "--ignore-disjoint-bases"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_accepts_a_typed_self_play_loop_and_rejects_a_wrong_one(tmp_path):
    good = tmp_path / "good.py"
    good.write_text(
        "import numpy\n"
        "import numpy.typing\n"
        "from gpu_movegen import env\n"
        "games: env.Env = env.make('go_9x9', batch_size=4, seed=1)\n"
        "state: env.State = games.reset(seed=2)\n"
        "mask: numpy.typing.NDArray[numpy.bool_] = state.legal_action_mask\n"
        "state = games.step(numpy.argmax(mask, axis=1))\n"
        "store: env.Snapshots = games.snapshots(8)\n"
        "games.save(store, numpy.arange(4))\n"
        "count: int = games.num_actions + len(store)\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text("from gpu_movegen import env\ngames = env.make('checkers', batch_size='4')\n")

    def mypy(*arguments):
        command = [sys.executable, "-m", "mypy", "--no-incremental", *arguments]
        return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)

    checked = mypy("--strict", str(good))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = mypy(str(bad))
    assert refused.returncode == 1, refused.stdout
    assert "Literal['checkers']" in refused.stdout and '"batch_size"' in refused.stdout, refused.stdout


def test_every_public_item_is_documented():
    for name in gpu_movegen.__all__:
        item = getattr(gpu_movegen, name)
        if callable(item):
            assert item.__doc__ and len(item.__doc__) > 20, name
    for method in ["legal_moves", "count_moves", "playouts"]:
        assert getattr(gpu_movegen.Generator, method).__doc__, method


def test_the_release_build_has_no_fault_points():
    assert not hasattr(gpu_movegen, "_failpoint")
    assert gpu_movegen.__version__ == "0.1.0"
