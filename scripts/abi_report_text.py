#!/usr/bin/python3
"""Prints an abi-compliance-checker XML report (-report-format xml) as text, for CI logs.

Usage: abi_report_text.py REPORT.xml KIND          the KIND (binary or source) report's problems
       abi_report_text.py REPORT.xml KIND --verdict  "compatible" or "incompatible"
Safe changes (added symbols, severity Safe) are not listed: they break nothing.
"""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def demangle(names):
    if not names:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def report_of(path, kind):
    text = open(path, encoding="utf-8").read()
    # The file holds one <report> per kind side by side, without a common root in older versions.
    for chunk in re.findall(r"<report kind=.*?</report>", text, re.S):
        report = ET.fromstring(chunk)
        if report.get("kind") == kind:
            return report
    raise SystemExit(f"abi_report_text: no {kind} report in {path}")


def fill(element):
    """The checker's message with its @placeholders replaced by the element's attributes."""
    message = element.text or ""
    for key, value in element.attrib.items():
        if key in ("old_size", "new_size") and value.isdigit():
            value = f"{int(value) // 8} bytes"  # the XML report's sizes are in bits
        message = message.replace("@" + key, f"'{value}'")
    return message


def main():
    path, kind = sys.argv[1], sys.argv[2]
    report = report_of(path, kind)
    verdict = report.findtext("test_results/verdict", "").strip()
    if "--verdict" in sys.argv:
        print(verdict)
        return
    print(f"{kind} compatibility: {verdict}")
    removed = [name.text for name in report.findall("removed_symbols//name")]
    for name in demangle(removed):
        print(f"  removed symbol: {name}")
    for section in report:
        if not section.tag.startswith("problems_with_") or section.get("severity") == "Safe":
            continue
        for owner in section.iter():
            if owner.tag not in ("type", "symbol") or owner.find("problem") is None:
                continue
            name = owner.get("name")
            if owner.tag == "symbol":
                name = demangle([name])[0]
            for problem in owner.findall("problem"):
                change = problem.find("change")
                print(f"  [{section.get('severity')}] {owner.tag} {name}: {problem.get('id')}: "
                      f"{fill(change) if change is not None else ''}")


if __name__ == "__main__":
    main()
