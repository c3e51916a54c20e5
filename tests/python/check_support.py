"""What the Python checks share: a named check that records its failure, and a check that a call
is refused with a one-line message of the expected kind."""

failures = []


def check(name, condition, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} {name} {detail}")
    if not condition:
        failures.append(name)


def refused(name, call, kind=ValueError):
    try:
        call()
    except kind as e:
        check(f"{name} refused", "\n" not in str(e) and str(e) != "", f"({kind.__name__}: {e})")
        return
    except Exception as e:  # noqa: BLE001
        check(f"{name} refused", False, f"({type(e).__name__}: {e})")
        return
    check(f"{name} refused", False, "(accepted)")
