#!/usr/bin/env python3
"""Prints the closing line of `./tessera test`: 'N passed, N failed, N skipped'.

Counts individual GoogleTest cases from each test target's test.xml, and
counts a target that failed without reporting a failing case (a crash, a
timeout, a build failure) as one failure.  Exits 1 if anything failed.
Usage: test_summary.py BAZEL_TEST_LOG BAZEL_TESTLOGS_DIR
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

STATUS = re.compile(r"^(//\S+)\s+(?:\(cached\)\s+)?(PASSED|FAILED TO BUILD|FAILED|TIMEOUT|"
                    r"NO STATUS|FLAKY|INCOMPLETE|SKIPPED)\b")


def count_cases(xml_path):
    passed = failed = skipped = 0
    try:
        root = ET.parse(xml_path).getroot()
    except (OSError, ET.ParseError):
        return None
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None or case.get("result") == "skipped" or \
                case.get("status") == "notrun":
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main():
    log_path, testlogs = sys.argv[1], sys.argv[2]
    targets = {}
    with open(log_path, errors="replace") as log:
        for line in log:
            m = STATUS.match(line.strip())
            if m:
                targets[m.group(1)] = m.group(2)
    build_failed = False
    with open(log_path, errors="replace") as log:
        text = log.read()
        if "FAILED: Build did NOT complete successfully" in text and not targets:
            build_failed = True
    passed = failed = skipped = 0
    failed_targets = []
    for target, status in sorted(targets.items()):
        package, name = target[2:].split(":")
        counts = None
        if status not in ("FAILED TO BUILD", "NO STATUS"):
            counts = count_cases(os.path.join(testlogs, package, name, "test.xml"))
        ok = status in ("PASSED", "FLAKY")
        if counts is None:
            if ok:
                passed += 1
            else:
                failed += 1
                failed_targets.append(f"{target} ({status})")
            continue
        p, f, s = counts
        if not ok and f == 0:
            f = 1
        if f:
            failed_targets.append(f"{target} ({status})")
        passed, failed, skipped = passed + p, failed + f, skipped + s
    if build_failed:
        failed += 1
        failed_targets.append("the build")
    if failed_targets:
        print("failed: " + ", ".join(failed_targets))
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or (passed == 0) else 0


if __name__ == "__main__":
    sys.exit(main())
