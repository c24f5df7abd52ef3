#!/usr/bin/python3
"""h5py side of the io interop tests (tests/io_test.cpp runs it).

  io_fixtures.py write DIR   writes fixtures.h5 (and others) that the C++ side reads
  io_fixtures.py check FILE  checks a file the C++ side wrote (values, shapes, dtypes)

Values follow formulas both sides compute (see the comments), plus one random
matrix whose values are also written as text (rand.txt, %.17g) for the C++ side.
Exit status: 0 ok, 1 a check failed, 3 h5py/numpy missing.
"""
import os
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # the C++ test turns this into a failure, never a pass
    print("io_fixtures.py: h5py/numpy not importable with %s (%s); install python3-h5py python3-numpy"
          % (sys.executable, e), file=sys.stderr)
    sys.exit(3)


def formula2(rows, cols, dtype, scale=100.0, off=0.25):
    i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return (i * scale + j + off).astype(dtype)          # a[i, j] = i*scale + j + off


def write(d):
    os.makedirs(d, exist_ok=True)
    with h5py.File(os.path.join(d, "fixtures.h5"), "w") as f:
        f["f64"] = formula2(7, 5, np.float64)                       # i*100 + j + 0.25
        f["f32"] = formula2(3, 1000, np.float32, 1000.0, 0.5)       # i*1000 + j + 0.5
        f["b"] = (np.arange(9) * 0.5 - 1.0).astype(np.float64)      # 1-D: b[i] = 0.5 i - 1
        f.create_dataset("chunked", data=formula2(300, 200, np.float64, 1000.0, 0.0),
                         chunks=(64, 64), compression="gzip", compression_opts=4)  # i*1000 + j
        f["i32"] = formula2(4, 6, np.int32, -10.0, 0).T.copy()      # shape (6, 4): a[i,j] = -10 j + i
        f["i64"] = (np.int64(2) ** 40 + formula2(2, 3, np.int64, 3.0, 0)).astype(np.int64)  # 2^40 + 3i + j
        f["u8"] = formula2(2, 2, np.uint8, 2.0, 1)                  # 2i + j + 1
        f["be"] = formula2(3, 4, ">f8")                             # big-endian: i*100 + j + 0.25
        f["complex"] = np.ones((2, 2), dtype=np.complex128)
        f["strings"] = np.array([b"ab", b"cd"], dtype="S2")
        f["compound"] = np.zeros(3, dtype=[("x", "f8"), ("n", "i4")])
        f["f16"] = np.ones((2, 2), dtype=np.float16)
        f["scalar"] = 1.5
        f["empty"] = np.zeros((0, 5))
        bt = np.zeros((4, 3, 2))
        for b in range(4):
            bt[b] = formula2(3, 2, np.float64, 10.0, b * 1000.0)    # x[b,i,j] = 1000 b + 10 i + j
        f["batch"] = bt
        f["batchvec"] = formula2(4, 5, np.float64, 10.0, 0.5)       # (count, n): 10 c + k + 0.5
        g = f.create_group("grp")
        g["nested"] = formula2(2, 2, np.float32, 2.0, 0.0)          # 2i + j
        rng = np.random.default_rng(7)
        r = rng.standard_normal((6, 4))
        f["rand"] = r
        f.attrs["title"] = "dla fixture"                  # variable-length str
        f.attrs["fixed"] = np.bytes_(b"fixed-len")       # fixed-length string
        f.attrs["n"] = np.int64(42)
        f.attrs["tol"] = 1e-6
        f["f64"].attrs["i32"] = np.int32(-7)
        f["f64"].attrs["arr1"] = np.array([2.5])          # a one-element array
        f["f64"].attrs["arr3"] = np.array([1.0, 2.0, 3.0])
    # Corrupted headers: a contiguous (12345, 3) float64 dataset whose stored
    # dimensions are patched to claim far more data than the file holds.
    import struct
    for name, first in (("corrupt_dims.h5", 12345 * 1000), ("corrupt_huge.h5", 2 ** 50)):
        p = os.path.join(d, name)
        with h5py.File(p, "w") as f:
            f["A"] = formula2(12345, 3, np.float64)
        raw = open(p, "rb").read()
        old = struct.pack("<QQ", 12345, 3)
        if old not in raw:
            print("io_fixtures.py: cannot find the dataspace of %s to corrupt it" % name, file=sys.stderr)
            sys.exit(1)
        open(p, "wb").write(raw.replace(old, struct.pack("<QQ", first, 3)))
    # A gzip chunk whose compressed bytes are overwritten: inflate must fail.
    p = os.path.join(d, "corrupt_gzip.h5")
    with h5py.File(p, "w") as f:
        f.create_dataset("A", data=formula2(200, 200, np.float64), chunks=(100, 100), compression="gzip")
        info = f["A"].id.get_chunk_info(0)
    with open(p, "r+b") as fh:
        fh.seek(info.byte_offset + info.size // 2)
        fh.write(b"\xff" * 64)
    # h5py's own LZF filter, which the HDF5 C library decodes only with a
    # plugin: without it a read must name the filter, not blame corruption.
    with h5py.File(os.path.join(d, "lzf.h5"), "w") as f:
        f.create_dataset("A", data=formula2(40, 30, np.float64), chunks=(8, 8), compression="lzf")
    # Storage outside the file, which HDF5 reads as zeros when it is missing:
    # a virtual dataset's sources (vds_src.h5 beside it; gone.h5 does not
    # exist) and external raw files (absolute names: HDF5 resolves relative
    # ones against the working folder).
    vsrc = formula2(3, 4, np.float64)                               # i*100 + j + 0.25
    with h5py.File(os.path.join(d, "vds_src.h5"), "w") as f:
        f["A"] = vsrc
    with h5py.File(os.path.join(d, "vds.h5"), "w") as f:
        for name, fn, dn in [("V", "vds_src.h5", "A"), ("V_gone_file", "gone.h5", "A"),
                             ("V_gone_dataset", "vds_src.h5", "nope")]:
            lay = h5py.VirtualLayout(shape=(3, 4), dtype=np.float64)
            lay[:] = h5py.VirtualSource(fn, dn, shape=(3, 4))
            f.create_virtual_dataset(name, lay, fillvalue=0)
    ext, short = os.path.join(d, "ext.bin"), os.path.join(d, "ext_short.bin")
    vsrc.tofile(ext)
    vsrc[:1].tofile(short)                                          # one row of three
    with h5py.File(os.path.join(d, "ext.h5"), "w") as f:
        f.create_dataset("E", shape=(3, 4), dtype=np.float64, external=[(ext, 0, 96)])
        f.create_dataset("E_short", shape=(3, 4), dtype=np.float64, external=[(short, 0, 96)])
        f.create_dataset("E_gone", shape=(3, 4), dtype=np.float64,
                         external=[(os.path.join(d, "gone.bin"), 0, 96)])
    with open(os.path.join(d, "rand.txt"), "w") as t:
        for row in r:
            t.write(" ".join("%.17g" % v for v in row) + "\n")
    print("io_fixtures.py: wrote %s with h5py %s" % (os.path.join(d, "fixtures.h5"), h5py.__version__))


class Checker:
    def __init__(self, path):
        self.path, self.errors, self.checked = path, [], 0

    def expect(self, f, name, dtype, shape, values):
        self.checked += 1
        if name not in f:
            self.errors.append("%s: missing" % name)
            return None
        ds = f[name]
        if ds.dtype != np.dtype(dtype):
            self.errors.append("%s: dtype %s, expected %s" % (name, ds.dtype, np.dtype(dtype)))
        if ds.shape != tuple(shape):
            self.errors.append("%s: shape %s, expected %s" % (name, ds.shape, tuple(shape)))
            return ds
        a = ds[()]
        if not np.array_equal(a, np.asarray(values, dtype=dtype)):
            bad = np.argwhere(a != np.asarray(values, dtype=dtype))
            self.errors.append("%s: %d values differ, first at %s" % (name, len(bad), bad[0].tolist()))
        return ds

    def attr(self, obj, name, value, kind):
        self.checked += 1
        if name not in obj.attrs:
            self.errors.append("attribute %s missing on %s" % (name, obj.name))
            return
        v = obj.attrs[name]
        if not isinstance(v, kind) or v != value:
            self.errors.append("attribute %s on %s: %r (%s), expected %r" % (name, obj.name, v, type(v), value))


def check(path):
    c = Checker(path)
    with h5py.File(path, "r") as f:
        c.expect(f, "A", "f8", (7, 5), formula2(7, 5, np.float64))
        c.expect(f, "A32", "f4", (3, 1000), formula2(3, 1000, np.float32, 1000.0, 0.5))
        c.expect(f, "v", "f8", (9,), np.arange(9) * 0.5 - 1.0)            # rank 1 kept
        c.expect(f, "v2d", "f8", (9, 1), (np.arange(9) * 0.5 - 1.0).reshape(9, 1))
        c.expect(f, "row", "f4", (1, 6), formula2(1, 6, np.float32))
        bt = np.stack([formula2(3, 2, np.float64, 10.0, b * 1000.0) for b in range(4)])
        c.expect(f, "batch", "f8", (4, 3, 2), bt)
        c.expect(f, "bvec", "f4", (4, 5), formula2(4, 5, np.float32, 10.0, 0.5))
        gz = c.expect(f, "gz", "f8", (300, 200), formula2(300, 200, np.float64, 1000.0, 0.0))
        if gz is not None and gz.compression != "gzip":
            c.errors.append("gz: compression %r, expected gzip" % gz.compression)
        c.expect(f, "piv", "i4", (5,), [3, 1, 4, 1, 5])
        c.expect(f, "piv64", "i8", (3,), [2 ** 40, -1, 0])
        c.expect(f, "grp/sub/C", "f8", (2, 3), formula2(2, 3, np.float64))
        c.attr(f, "title", "written by dla", str)
        c.attr(f, "count", 12, (int, np.integer))
        c.attr(f, "tol", 1e-6, (float, np.floating))
        if "A" in f:
            c.attr(f["A"], "note", "matrix A", str)
    if c.errors:
        for e in c.errors:
            print("io_fixtures.py check %s: %s" % (path, e), file=sys.stderr)
        return 1
    print("io_fixtures.py: %s: %d datasets/attributes match (h5py %s)" % (path, c.checked, h5py.__version__))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "write":
        write(sys.argv[2])
        sys.exit(0)
    sys.exit(check(sys.argv[2]))
