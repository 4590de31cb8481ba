"""uncompress.py: the binary Darshan logs of the shared data, rewritten with every
region stored uncompressed (header compression 2, "none"), as seeds of
fuzz_darshan_bin: a mutation of a zlib region almost never inflates, one of a plain
region reaches the decoders. Keeps the logs whose rewrite fits fuzz/run.sh's
-max_len (16 KiB). Run from the repository with Debian's python3:
    /usr/bin/python3 fuzz/seeds/darshan_bin/uncompress.py ../shared/data
"""
import bz2
import glob
import os
import struct
import sys
import zlib

MAGIC = 6567223
MAX_LEN = 16384


def inflate(comp, data):
    """Every stream of a region, one after another (darshan flushes a stream per
    buffer); bzip2 likewise."""
    out = b""
    while data:
        d = zlib.decompressobj() if comp == 0 else bz2.BZ2Decompressor()
        out += d.decompress(data)
        data = d.unused_data
        if comp == 0 and not d.eof or comp == 1 and not d.eof:
            raise ValueError("cut stream")
    return out


def rewrite(raw):
    version = raw[:8].rstrip(b"\0").decode()
    new = version == "3.41"
    hlen, slots, names_at = (1328, 64, 32) if new else (360, 16, 24)
    order = "<" if struct.unpack_from("<Q", raw, 8)[0] == MAGIC else ">"
    comp = raw[16]
    if comp == 2:
        return None
    names_off, names_len = struct.unpack_from(order + "QQ", raw, names_at)
    mods_at = names_at + 16
    mods = [struct.unpack_from(order + "QQ", raw, mods_at + 16 * s) for s in range(slots)]
    job_end = names_off or next((o for o, _ in mods if o), len(raw))
    regions = [inflate(comp, raw[hlen:job_end])[:4096]]
    regions.append(inflate(comp, raw[names_off:names_off + names_len]) if names_len else b"")
    regions += [inflate(comp, raw[o:o + n]) if n else b"" for o, n in mods]
    header = bytearray(raw[:hlen])
    header[16] = 2
    at = hlen + len(regions[0])
    body = regions[0]
    maps = []
    for r in regions[1:]:
        maps.append((at, len(r)) if r else (0, 0))
        body += r
        at += len(r)
    struct.pack_into(order + "QQ", header, names_at, *maps[0])
    for s in range(slots):
        struct.pack_into(order + "QQ", header, mods_at + 16 * s, *maps[1 + s])
    return bytes(header) + body


def main():
    data = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    paths = sorted(glob.glob(data + "/darshan/*/*.darshan") +
                   glob.glob(data + "/lab/run1_queue_depth/darshan/*.darshan"))
    kept = 0
    for p in paths:
        with open(p, "rb") as f:
            out = rewrite(f.read())
        if out is None or len(out) > MAX_LEN:
            continue
        name = os.path.basename(os.path.dirname(p))
        if name == "darshan":
            name = "lab_" + os.path.basename(p).split("_")[2]
        with open(os.path.join(here, name + ".darshan"), "wb") as f:
            f.write(out)
        kept += 1
    print(f"{kept} of {len(paths)} logs rewritten uncompressed")


main()
