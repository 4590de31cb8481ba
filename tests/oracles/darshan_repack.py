#!/usr/bin/python3
"""darshan_repack.py: rewrites a binary Darshan log (formats 3.00 to 3.41) with its
regions compressed another way, for the reader's tests.

usage: darshan_repack.py IN OUT bzip2|none

Every region (the job region, the record table, each module's) is inflated from zlib
(one stream after another) and written again as one bzip2 stream, or as it is for
"none"; the header's compression type and its map of offsets and lengths follow.
Uses only zlib, bz2 and struct, from the format's description."""
import bz2
import struct
import sys
import zlib

MAGIC = 6567223


def inflate_all(data):
    out = b""
    while data:
        z = zlib.decompressobj()
        out += z.decompress(data)
        if not z.eof:
            raise SystemExit("region ends inside a zlib stream")
        data = z.unused_data
    return out


def main():
    src, dst, method = sys.argv[1], sys.argv[2], sys.argv[3]
    d = open(src, "rb").read()
    v341 = d[:4] == b"3.41"
    order = "<" if struct.unpack("<q", d[8:16])[0] == MAGIC else ">"
    if struct.unpack(order + "q", d[8:16])[0] != MAGIC:
        raise SystemExit("bad magic")
    if d[16] != 0:
        raise SystemExit("expected a zlib log")
    hlen, names_at, slots = (1328, 32, 64) if v341 else (360, 24, 16)
    maps_at = names_at + 16
    name_map = struct.unpack(order + "QQ", d[names_at:names_at + 16])
    mods = [struct.unpack(order + "QQ", d[maps_at + 16 * i:maps_at + 16 * i + 16])
            for i in range(slots)]
    # the job region runs from the header to the record table (or the first module)
    end = name_map[0] or next((o for o, n in mods if o), len(d))
    regions = [("job", hlen, end - hlen)]
    if name_map[1]:
        regions.append(("names", name_map[0], name_map[1]))
    for i, (o, n) in enumerate(mods):
        if n:
            regions.append((i, o, n))
    regions.sort(key=lambda r: r[1])

    out = bytearray(d[:hlen])
    out[16] = 1 if method == "bzip2" else 2
    for key, off, n in regions:
        raw = inflate_all(d[off:off + n])
        packed = bz2.compress(raw) if method == "bzip2" else raw
        new_off = len(out)
        out += packed
        if key == "job":
            # empty maps that still point somewhere mark where the job region ends
            after = len(out)
            if name_map[0] and not name_map[1]:
                struct.pack_into(order + "QQ", out, names_at, after, 0)
            for i, (o, n) in enumerate(mods):
                if o and not n:
                    struct.pack_into(order + "QQ", out, maps_at + 16 * i, after, 0)
        elif key == "names":
            struct.pack_into(order + "QQ", out, names_at, new_off, len(packed))
        elif key != "job":
            struct.pack_into(order + "QQ", out, maps_at + 16 * key, new_off, len(packed))
    open(dst, "wb").write(bytes(out))


if __name__ == "__main__":
    main()
