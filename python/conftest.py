"""The summary line scripts/test adds to its total, for tests/ and fault_tests/."""


def pytest_terminal_summary(terminalreporter):
    """One line in cargo's form, so that scripts/test adds these tests to its total."""
    stats = terminalreporter.stats
    passed = len(stats.get("passed", []))
    failed = len(stats.get("failed", [])) + len(stats.get("error", []))
    ignored = len(stats.get("skipped", [])) + len(stats.get("xfailed", []))
    state = "ok" if failed == 0 else "FAILED"
    terminalreporter.write_line(f"test result: {state}. {passed} passed; {failed} failed; {ignored} ignored; (pytest)")
