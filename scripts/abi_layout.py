#!/usr/bin/python3
"""Lists the public types whose size or layout differs between two abi-dumper dumps.

Usage: abi_layout.py OLD.dump NEW.dump    one line per changed type; nothing when none changed

A program built against the old headers allocates, copies and embeds a public struct at its old size
and reads its fields at the old offsets, so any such change needs a new SONAME (docs/api-stability.md).
abi-compliance-checker does not say so reliably: it rates a size change "Low" (binary verdict
"compatible") when the library takes the type by pointer or reference, and it leaves out types no
exported symbol's signature reaches (after 0.2.0 kernel::LayerCommand grew 88 -> 96 bytes, a Low
problem, and fpgacnn::DeviceCommand, which embeds it, 128 -> 136 bytes, not reported at all). The
dumps hold every type of the public headers with its size and its fields' offsets: compared here.
"""
import json
import os
import subprocess
import sys

# The dumps are Perl Data::Dumper text ($VAR1 = {...};): Perl (which abi-dumper itself runs on) reads
# them and hands the type table over as JSON.
PERL_TO_JSON = r'our $VAR1; my $d = do $ARGV[0] or die "$ARGV[0]: $@ $!"; print JSON::PP->new->encode($d->{TypeInfo})'


def public_types(path):
    """{type name: type info} of the structs, classes and unions declared in the public headers."""
    # `do` looks a relative path up in Perl's @INC: the path is made absolute.
    out = subprocess.run(["perl", "-MJSON::PP", "-e", PERL_TO_JSON, os.path.abspath(path)], capture_output=True,
                         text=True, check=True)
    table = json.loads(out.stdout)
    types = {}
    for info in table.values():
        # PrivateABI marks the types of headers outside -public-headers (std::, the compiler's).
        if info.get("Type") in ("Struct", "Class", "Union") and "Header" in info and not info.get("PrivateABI"):
            types[info["Name"]] = info
    return table, types


def offset_of(member):
    """A field's offset in bytes. abi-dumper 1.2 reads readelf's decimal DW_AT_data_member_location as
    hexadecimal (a field at byte 88 is dumped as 136 = 0x88); printed in hexadecimal, the number is
    readelf's again. Comparisons need no conversion: both dumps are written the same way."""
    offset = member.get("offset", "?")
    return format(int(offset), "x") if offset.isdigit() else offset


def fields(table, info):
    """[(name, offset, size)] in declaration order; offsets and sizes in bytes."""
    members = info.get("Memb", {})
    result = []
    for position in sorted(members, key=int):
        member = members[position]
        size = table.get(member.get("type", ""), {}).get("Size", "?")
        offset = offset_of(member)
        if "bitfield" in member:
            offset = f"{offset} (bits {member['bitfield']})"
        result.append((member.get("name", "?"), offset, size))
    return result


def bases(table, info):
    return [table.get(base, {}).get("Name", base) for base in sorted(info.get("Base", {}),
                                                                          key=lambda b: int(info["Base"][b]["pos"]))]


def describe(old_table, old, new_table, new):
    """The differences of one type's layout in words (empty when none)."""
    changes = []
    if old.get("Size") != new.get("Size"):
        changes.append(f"size {old.get('Size')} -> {new.get('Size')} bytes")
    if bases(old_table, old) != bases(new_table, new):
        changes.append(f"base classes {bases(old_table, old)} -> {bases(new_table, new)}")
    old_fields = {name: (offset, size) for name, offset, size in fields(old_table, old)}
    new_fields = {name: (offset, size) for name, offset, size in fields(new_table, new)}
    for name, (offset, size) in new_fields.items():
        if name not in old_fields:
            changes.append(f"field '{name}' added at offset {offset} ({size} bytes)")
        elif old_fields[name][0] != offset:
            changes.append(f"field '{name}' moved from offset {old_fields[name][0]} to {offset}")
        if name in old_fields and old_fields[name][1] != size:
            changes.append(f"field '{name}' {old_fields[name][1]} -> {size} bytes")
    for name, (offset, _) in old_fields.items():
        if name not in new_fields:
            changes.append(f"field '{name}' at offset {offset} removed")
    return changes


def main():
    old_table, old_types = public_types(sys.argv[1])
    new_table, new_types = public_types(sys.argv[2])
    # A type only in the old dump may just be unreferenced now; its declaration's removal is a source
    # change the checker reports. An added type breaks nothing.
    for name in sorted(set(old_types) & set(new_types)):
        changes = describe(old_table, old_types[name], new_table, new_types[name])
        if changes:
            print(f"  layout of {name} changed: " + "; ".join(changes))


if __name__ == "__main__":
    main()
