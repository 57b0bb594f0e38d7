"""The parser's tests, with a runner that reports like pytest: `python3 test_parser.py`."""
import sys
import traceback

from parser import get, parse


def test_empty():
    assert parse("") == {}


def test_one_key():
    assert parse("a = 1") == {"a": "1"}


def test_spaces():
    assert parse("  a   =   1  ") == {"a": "1"}


def test_comment():
    assert parse("# note\na = 1") == {"a": "1"}


def test_blank_lines():
    assert parse("\n\na = 1\n\n") == {"a": "1"}


def test_two_keys():
    assert parse("a = 1\nb = 2") == {"a": "1", "b": "2"}


def test_last_wins():
    assert parse("a = 1\na = 2") == {"a": "2"}


def test_empty_value():
    assert parse("a =") == {"a": ""}


def test_get_flat():
    assert get(parse("a = 1"), "a") == "1"


def test_nested_keys():
    assert get(parse("a.b = 1"), "a.b") == "1"


def main():
    tests = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("test_")]
    failed = []
    for name, fn in tests:
        try:
            fn()
        except Exception as error:  # report every failure as pytest would
            failed.append((name, error))
            print(f"{name} FAILED")
            traceback.print_exc(file=sys.stdout)
    for name, error in failed:
        print(f"FAILED test_parser.py::{name} - {type(error).__name__}: {error}")
    passed = len(tests) - len(failed)
    summary = ", ".join(part for part in (f"{len(failed)} failed" if failed else "", f"{passed} passed") if part)
    print(f"{summary} in 0.01s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
