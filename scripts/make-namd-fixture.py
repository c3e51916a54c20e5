#!/usr/bin/env python3
"""Makes data/fixtures/charmm/SiN_tric_namd_every8.{dcd,psf}: every 8th atom of NAMD's
SiN_tric_namd.dcd (MDAnalysis's test data: one frame, 5545 atoms, a triclinic cell stored as
cosines) with the matching atoms of SiN_tric_namd.psf, small enough to keep in git.

The DCD keeps NAMD's records byte for byte (header, title, the frame's unit cell record, the
coordinates of the kept atoms as NAMD wrote them) except the atom count and the record lengths;
the PSF keeps the title and the kept atoms' lines (renumbered), and no bonds.

    python3 scripts/make-namd-fixture.py MDANALYSIS_TESTSUITE_DATA_DIR [OUT_DIR]
"""
import os
import struct
import sys

STRIDE = 8


def records(data):
    """The Fortran unformatted records of a little-endian DCD, as byte strings."""
    out, at = [], 0
    while at < len(data):
        (n,) = struct.unpack_from("<i", data, at)
        (end,) = struct.unpack_from("<i", data, at + 4 + n)
        if end != n:
            sys.exit(f"record at byte {at}: markers {n} and {end} differ")
        out.append(data[at + 4 : at + 4 + n])
        at += 8 + n
    return out


def record(payload):
    return struct.pack("<i", len(payload)) + payload + struct.pack("<i", len(payload))


def main():
    src = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "data/fixtures/charmm"
    with open(os.path.join(src, "SiN_tric_namd.dcd"), "rb") as f:
        recs = records(f.read())
    header, title, natom_rec = recs[0], recs[1], recs[2]
    (natoms,) = struct.unpack("<i", natom_rec)
    if header[:4] != b"CORD" or natoms != 5545:
        sys.exit("not NAMD's SiN_tric_namd.dcd")
    has_cell = struct.unpack_from("<i", header, 4 + 10 * 4)[0] == 1
    keep = list(range(0, natoms, STRIDE))
    body, i = [], 3
    while i < len(recs):
        if has_cell:
            body.append(record(recs[i]))  # the unit cell, as NAMD wrote it
            i += 1
        for axis in range(3):
            values = recs[i + axis]
            body.append(record(b"".join(values[4 * a : 4 * a + 4] for a in keep)))
        i += 3
    with open(os.path.join(out_dir, "SiN_tric_namd_every8.dcd"), "wb") as f:
        f.write(record(header) + record(title) + record(struct.pack("<i", len(keep))))
        f.write(b"".join(body))

    with open(os.path.join(src, "SiN_tric_namd.psf")) as f:
        lines = f.read().split("\n")
    at = next(k for k, line in enumerate(lines) if "!NATOM" in line)
    atom_lines = lines[at + 1 : at + 1 + natoms]
    out = lines[:at] + [f"{len(keep):8d} !NATOM"]
    out += [f"{n + 1:8d}" + atom_lines[a][8:] for n, a in enumerate(keep)]
    out += ["", f"{0:8d} !NBOND: bonds", "", ""]
    with open(os.path.join(out_dir, "SiN_tric_namd_every8.psf"), "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
