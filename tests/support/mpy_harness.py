# Runs the test functions of one module under MicroPython (or CPython).
#
# Usage: micropython mpy_harness.py MODULE [TEST_NAME ...]
#
# Imports MODULE from the module path, calls every callable whose name starts
# with "test_" (sorted, or the ones named), prints each failure's traceback and
# ends with the line "N passed, M failed"; exits 1 if any failed. Written in the
# subset both runtimes accept: no pytest, no fixtures.
import sys


def _print_exc(exc):
    if hasattr(sys, "print_exception"):
        sys.print_exception(exc)
    else:
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__)


def main(argv):
    if len(argv) < 2:
        print("usage: mpy_harness.py MODULE [TEST ...]")
        return 2
    module = __import__(argv[1])
    names = argv[2:] or sorted(n for n in dir(module) if n.startswith("test_"))
    passed = failed = 0
    for name in names:
        fn = getattr(module, name)
        if not callable(fn):
            continue
        try:
            fn()
        except Exception as exc:  # report every failure, keep going
            failed += 1
            print("FAIL " + name)
            _print_exc(exc)
        else:
            passed += 1
            print("ok   " + name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main(sys.argv))
