"""The installed package: its typing stubs match the module, and it is the release build."""

import ast
import pathlib

import gpu_movegen


def stub_path():
    return pathlib.Path(gpu_movegen.__file__).with_name("__init__.pyi")


def test_the_package_is_typed():
    assert stub_path().is_file()
    assert stub_path().with_name("py.typed").is_file()


def test_the_stubs_name_every_public_item_and_no_other():
    tree = ast.parse(stub_path().read_text())
    typing_only = {"Game", "Backend", "Info"}
    stubbed = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stubbed.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            stubbed.add(node.target.id)
        elif isinstance(node, ast.Assign):
            stubbed.update(target.id for target in node.targets)
    assert stubbed - typing_only == set(gpu_movegen.__all__)
    for name in gpu_movegen.__all__:
        assert hasattr(gpu_movegen, name), name


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
