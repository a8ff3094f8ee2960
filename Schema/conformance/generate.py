#!/usr/bin/env python3
"""Writes the ForkStore conformance corpus (see README.md) from the cases below.

Run from anywhere: python3 Schema/conformance/generate.py. It needs only Python 3's standard
library; the stores are `git fast-import` streams, so any git builds them.
"""
import hashlib
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
TIME = 1763900000  # 2025-11-23T12:13:20Z, every commit's author and committer time


def canonical(value, indent=0):
    """Canonical JSON (FORMAT.md section 4) for the values this corpus uses (no fractions)."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = sorted(value.items(), key=lambda kv: kv[0].encode())
        body = ",\n".join(pad + string(k) + ": " + canonical(v, indent + 1) for k, v in items)
        return "{\n" + body + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(pad + canonical(v, indent + 1) for v in value) + "\n" + "  " * indent + "]"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    return string(value)


def string(text):
    out = '"'
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out += '\\"'
        elif ch == "\\":
            out += "\\\\"
        elif ch in "\b\f\n\r\t":
            out += {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
        elif code < 0x20:
            out += "\\u%04x" % code
        else:
            out += ch
    return out + '"'


def document(value):
    return (canonical(value) + "\n").encode()


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def record_path(record_id):
    """FORMAT.md section 5.1."""
    raw = record_id.encode()
    digest = blob_id(raw)
    pieces = []
    for byte in raw:
        c = chr(byte)
        if "a" <= c <= "z" or "0" <= c <= "9" or c in "_-":
            pieces.append(c)
        elif "A" <= c <= "Z":
            pieces.append("^" + c.lower())
        else:
            pieces.append("%%%02x" % byte)
    name = "".join(pieces)
    devices = {"con", "prn", "aux", "nul"} | {"com%d" % i for i in range(1, 10)} | {"lpt%d" % i for i in range(1, 10)}
    if not raw:
        name = "%"
    elif name in devices:
        pieces[0] = "%%%02x" % raw[0]
        name = "".join(pieces)
    if len(name.encode()) > 150:
        kept, size = [], 0
        for piece in pieces:
            if size + len(piece) > 100:
                break
            kept.append(piece)
            size += len(piece)
        name = "".join(kept) + "~" + digest
    return "records/%s/%s/%s.json" % (digest[0:2], digest[2:4], name)


def envelope(record_id, record, model_version=1):
    return document({"id": record_id, "modelVersion": model_version, "record": record})


def stamp(model_version=1, format_version=1, record_count=None, lamport=1):
    lines = ["Model-Version: %d" % model_version, "Format-Version: %d" % format_version, "Lamport: %d" % lamport]
    if record_count is not None:
        lines.append("Record-Count: %d" % record_count)
    return "\n".join(lines) + "\n"


class Stream:
    """A git fast-import stream: commits of whole trees, each on a branch."""

    def __init__(self):
        self.out = bytearray()
        self.mark = 0
        self.heads = {}

    def commit(self, branch, message, files, parent_branch=None):
        """Commits `files` ({path: bytes}) as the whole tree on `branch`, after the head of
        `parent_branch` (default: `branch`'s own head, if any)."""
        self.mark += 1
        mark = self.mark
        message = message.encode()
        self.out += b"commit refs/heads/%s\nmark :%d\n" % (branch.encode(), mark)
        self.out += b"author ForkStore <forkstore@localhost> %d +0000\n" % TIME
        self.out += b"committer ForkStore <forkstore@localhost> %d +0000\n" % TIME
        self.out += b"data %d\n%s\n" % (len(message), message)
        parent = self.heads.get(parent_branch or branch)
        if parent:
            self.out += b"from :%d\n" % parent
        self.out += b"deleteall\n"
        for path in sorted(files):
            data = files[path]
            self.out += b"M 100644 inline %s\ndata %d\n%s\n" % (quote(path), len(data), data)
        self.out += b"\n"
        self.heads[branch] = mark
        return mark


def quote(path):
    if any(c in path for c in '"\\\n') or path.startswith('"'):
        return ('"' + path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"').encode()
    return path.encode()


def manifest(resource, **changes):
    text = changes.pop("text", None)
    if text is not None:
        return text.encode()
    value = {"format": "forkstore", "formatVersion": 1, "resource": resource}
    value.update(changes)
    return document(value)


def write_case(name, manifest_bytes, stream, expected):
    folder = os.path.join(HERE, "stores", name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "forkstore.json"), "wb") as f:
        f.write(manifest_bytes)
    with open(os.path.join(folder, "import.fi"), "wb") as f:
        f.write(bytes(stream.out))
    with open(os.path.join(folder, "expected.json"), "wb") as f:
        f.write(document(expected))


def note(record_id, title, **more):
    record = {"id": record_id, "title": title}
    record.update(more)
    return record


def listing(records):
    """The records a reader lists, sorted by the UTF-8 bytes of their ids."""
    return sorted(({"id": r["id"], "record": r} for r in records), key=lambda e: e["id"].encode())


def records_cases():
    ids = ["note-1", "Hello world", "inbox/2024\tdraft", "", "é", "e\u0301", "CON", "x" * 200, "../etc/passwd",
           "line\nbreak", "100%", "~/a~b"]
    main = [note(i, "title of %d" % n, n=n, tags=["a", "b"] if n % 2 else []) for n, i in enumerate(ids)]
    stream = Stream()
    stream.commit("main", "Create store\n\n" + stamp(record_count=0), {})
    files = {record_path(r["id"]): envelope(r["id"], r) for r in main}
    stream.commit("main", "Save records\n\n" + stamp(record_count=len(main), lamport=2), files)
    phone_records = [r for r in main if r["id"] != "note-1"] + [note("phone-only", "from the phone", n=99)]
    phone_files = {record_path(r["id"]): envelope(r["id"], r) for r in phone_records}
    stream.commit("phone", "Edit on the phone\n\n" + stamp(record_count=len(phone_records), lamport=3), phone_files,
                  parent_branch="main")
    write_case("records-basic", manifest("records"), stream, {
        "resource": "records",
        "forks": {
            "main": {"records": listing(main), "count": len(main), "problems": []},
            "phone": {"records": listing(phone_records), "count": len(phone_records), "problems": []},
        },
    })

    # Entries the layout does not name are ignored (and kept by writers).
    stream = Stream()
    a = note("a", "A")
    files = {record_path("a"): envelope("a", a), "README": b"not a record\n", "records/00/00/notes.txt": b"not a record\n",
             "records/README.md": b"hello\n", "records/zz/00/x.json": b"{}\n"}
    stream.commit("main", "By another tool\n\n" + stamp(), files)
    write_case("records-extras", manifest("records"), stream, {
        "resource": "records", "forks": {"main": {"records": listing([a]), "count": 1, "problems": []}},
    })

    # A record at a path its id does not give: damaged, reported, not listed.
    stream = Stream()
    files = {record_path("a"): envelope("a", a), record_path("b"): envelope("a", a)}
    stream.commit("main", "A copy at a second path\n\n" + stamp(), files)
    write_case("records-damaged", manifest("records"), stream, {
        "resource": "records",
        "forks": {"main": {"records": listing([a]), "count": 2, "problems": [record_path("b")]}},
    })

    # The envelope's id, the path and the record's own id agree, and modelVersion is a model
    # version (1 to 999999999); otherwise the record is damaged, never read under the
    # commit's version or listed under its own id.
    stream = Stream()
    b, c, d, e = (note(i, i.upper()) for i in "bcde")
    files = {
        record_path("a"): envelope("a", a),
        record_path("b"): envelope("b", note("phantom", "B")),
        record_path("c"): document({"id": "c", "modelVersion": 10**20 - 1, "record": c}),
        record_path("d"): envelope("d", d, model_version=0),
        record_path("e"): document({"id": "e", "modelVersion": "1", "record": e}),
    }
    stream.commit("main", "Envelopes that disagree\n\n" + stamp(), files)
    write_case("records-envelope-disagrees", manifest("records"), stream, {
        "resource": "records",
        "forks": {"main": {"records": listing([a]), "count": 5,
                           "problems": sorted(record_path(i) for i in "bcde")}},
    })

    # Readers accept any valid JSON locally and read it as its canonical form.
    stream = Stream()
    loose = ('{"record": {"title": "Loose", "n": 1.0, "big": 1e3, "id": "loose"},\n "modelVersion": 1, "id": "loose"}').encode()
    stream.commit("main", "Not canonical\n\n" + stamp(), {record_path("loose"): loose})
    write_case("records-noncanonical", manifest("records"), stream, {
        "resource": "records",
        "forks": {"main": {"records": listing([note("loose", "Loose", n=1, big=1000)]), "count": 1, "problems": []}},
    })

    # A record without modelVersion takes the commit's; a record of a newer version is refused.
    stream = Stream()
    stream.commit("main", "Old envelope\n\n" + stamp(), {record_path("a"): document({"id": "a", "record": a})})
    stream.commit("newer", "Written by version 2\n\n" + stamp(), {record_path("a"): envelope("a", a, model_version=2)},
                  parent_branch="main")
    write_case("records-model-versions", manifest("records"), stream, {
        "resource": "records",
        "forks": {
            "main": {"records": listing([a]), "count": 1, "problems": []},
            "newer": {"refused": "unknown-model-version"},
        },
    })


def checkpoint_case():
    """A store whose main was compacted (FORMAT.md 16): a root checkpoint naming a horizon this
    replica never had, then a commit on it; forks whose Checkpoint-Of breaks its one form."""
    horizon = "4f2a" * 10
    a, b = note("a", "A"), note("b", "B")
    before = {record_path("a"): envelope("a", a)}
    after = dict(before, **{record_path("b"): envelope("b", b)})
    checkpoint = ("Checkpoint of %s\n\nModel-Version: 1\nFormat-Version: 1\nLamport: 7\nClock: 1763899990001-0\n"
                  "Replica: 9f86d081884c7d65\nRecord-Count: 1\nCheckpoint-Of: %s\n" % (horizon, horizon))
    stream = Stream()
    stream.commit("main", checkpoint, before)
    stream.commit("main", "Save b\n\n" + stamp(record_count=2, lamport=8), after)
    stream.commit("twice", checkpoint + "Checkpoint-Of: %s\n" % horizon, before)
    stream.commit("uppercase", checkpoint.replace("Checkpoint-Of: " + horizon, "Checkpoint-Of: " + horizon.upper()), before)
    stream.commit("short", checkpoint.replace("Checkpoint-Of: " + horizon, "Checkpoint-Of: " + horizon[:10]), before)
    stream.commit("with-parent", checkpoint, before, parent_branch="main")
    write_case("records-checkpoint", manifest("records"), stream, {
        "resource": "records",
        "forks": {
            "main": {"records": listing([a, b]), "count": 2, "problems": []},
            "twice": {"refused": "malformed-commit"},
            "uppercase": {"refused": "malformed-commit"},
            "short": {"refused": "malformed-commit"},
            "with-parent": {"refused": "malformed-commit"},
        },
    })


def asset(content, media_type=None, name=None, **more):
    """An asset reference (FORMAT.md 13.1) to the bytes `content`."""
    reference = {"$asset": "sha256:" + hashlib.sha256(content).hexdigest(), "size": len(content)}
    if media_type is not None:
        reference["mediaType"] = media_type
    if name is not None:
        reference["name"] = name
    reference.update(more)
    return reference


def as_read(reference):
    """A well-formed reference as a reader gives it back: the members the format names, the
    media type filled in."""
    read = {"$asset": reference["$asset"], "size": reference["size"],
            "mediaType": reference.get("mediaType", "application/octet-stream")}
    if "name" in reference:
        read["name"] = reference["name"]
    return read


def assets_case():
    """Records holding asset references: at the top, in a list, with a member a later version
    adds (ignored, kept), and one a remote would refuse (an id in upper case), which a reader
    still reads locally."""
    cat = asset(b"cat", "image/jpeg", "cat.jpg")
    first, second = asset(b"page one", "image/png"), asset(b"page two")
    later = asset(b"later", "application/pdf", "notes.pdf", **{"x-later": {"pages": 2}})
    loose = {"$asset": "sha256:" + hashlib.sha256(b"loose").hexdigest().upper(), "size": 5}
    records = [
        note("photo", "A cat", file=cat),
        note("album", "Two pages", pages=[{"image": first}, {"caption": "second", "image": second}]),
        note("later", "From a later version", file=later),
        note("loose", "Upper case", file=loose),
        note("plain", "No asset"),
    ]
    stream = Stream()
    stream.commit("main", "Create store\n\n" + stamp(record_count=0), {})
    stream.commit("main", "Save records\n\n" + stamp(record_count=len(records), lamport=2),
                  {record_path(r["id"]): envelope(r["id"], r) for r in records})
    write_case("records-assets", manifest("records"), stream, {
        "resource": "records",
        "forks": {"main": {
            "records": listing(records), "count": len(records), "problems": [],
            "assets": {"photo": [as_read(cat)], "album": [as_read(first), as_read(second)], "later": [as_read(later)]},
            "malformedAssets": {"loose": ["/file"]},
        }},
    })

    stream = Stream()
    value = {"title": "Poster", "image": asset(b"poster", "image/webp", "poster.webp")}
    stream.commit("main", "Create store\n\n" + stamp(), {})
    stream.commit("main", "Save value\n\n" + stamp(lamport=2), {"value.json": document(value)})
    write_case("value-assets", manifest("value"), stream, {
        "resource": "value",
        "forks": {"main": {"value": value, "assets": [as_read(value["image"])], "malformedAssets": []}},
    })

def value_cases():
    stream = Stream()
    value = {"count": 2, "title": "hi", "tags": ["x"], "nested": {"é": True, "z": None}}
    stream.commit("main", "Create store\n\n" + stamp(), {})
    stream.commit("main", "Save value\n\n" + stamp(lamport=2), {"value.json": document(value)})
    stream.commit("removed", "Remove value\n\n" + stamp(lamport=3), {}, parent_branch="main")
    stream.commit("extras", "Another tool's file\n\n" + stamp(lamport=3),
                  {"value.json": document(value), "NOTES.txt": b"kept\n"}, parent_branch="main")
    write_case("value-basic", manifest("value"), stream, {
        "resource": "value",
        "forks": {"main": {"value": value}, "removed": {"value": None}, "extras": {"value": value}},
    })

    # Each fork's head breaks one rule.
    value = {"title": "t"}
    heads = {
        "plus-sign": ("x\n\nModel-Version: +1\nFormat-Version: 1\n", "malformed-commit"),
        "twice": ("x\n\nModel-Version: 1\nModel-Version: 1\nFormat-Version: 1\n", "malformed-commit"),
        "leading-zero": ("x\n\nModel-Version: 01\nFormat-Version: 1\n", "malformed-commit"),
        "no-format-version": ("x\n\nModel-Version: 1\n", "malformed-commit"),
        "negative-lamport": ("x\n\nModel-Version: 1\nFormat-Version: 1\nLamport: -1\n", "malformed-commit"),
        "patch-divider": ("x\n---\ny\n\nModel-Version: 1\nFormat-Version: 1\n", "malformed-commit"),
        "mixed-block": ("x\n\nModel-Version: 1\nFormat-Version: 1\nnot a trailer\n", "malformed-commit"),
        "trailer-only": ("Model-Version: 1\nFormat-Version: 1\n", "missing-model-version"),
        "newer-format": ("x\n\nModel-Version: 1\nFormat-Version: 2\n", "newer-format"),
        "newer-model": ("x\n\nModel-Version: 2\nFormat-Version: 1\n", "unknown-model-version"),
    }
    stream = Stream()
    stream.commit("main", "Create store\n\n" + stamp(), {"value.json": document(value)})
    for fork, (message, _) in sorted(heads.items()):
        stream.commit(fork, message, {"value.json": document(value)}, parent_branch="main")
    stream.commit("bad-json", "x\n\n" + stamp(), {"value.json": b'{"title": "t",}\n'}, parent_branch="main")
    stream.commit("key-twice", "x\n\n" + stamp(), {"value.json": b'{"title": "t", "title": "u"}\n'}, parent_branch="main")
    stream.commit("stamps-as-git-reads-them", "x\n \nModel-Version : 1\nformat-version:1\nMerged-Fork: a\n  b\n",
                  {"value.json": document(value)}, parent_branch="main")
    forks = {fork: {"refused": kind} for fork, (_, kind) in heads.items()}
    forks.update({"main": {"value": value}, "bad-json": {"refused": "invalid-json"}, "key-twice": {"refused": "invalid-json"},
                  "stamps-as-git-reads-them": {"value": value}})
    write_case("value-refusals", manifest("value"), stream, {"resource": "value", "forks": forks})


def manifest_cases():
    for name, text in {
        "manifest-key-twice": '{"format": "forkstore", "formatVersion": 1, "formatVersion": 1, "resource": "value"}\n',
        "manifest-format-version-0": '{"format": "forkstore", "formatVersion": 0, "resource": "value"}\n',
        "manifest-unknown-resource": '{"format": "forkstore", "formatVersion": 1, "resource": "blobs"}\n',
        "manifest-not-json": '{"format": "forkstore",\n',
    }.items():
        stream = Stream()
        stream.commit("main", "Create store\n\n" + stamp(), {})
        write_case(name, manifest("value", text=text), stream, {"refused": "not-a-store"})
    stream = Stream()
    stream.commit("main", "Create store\n\n" + stamp(), {})
    write_case("manifest-newer-format", manifest("value", formatVersion=2), stream, {"refused": "newer-format"})
    stream = Stream()
    stream.commit("main", "Create store\n\n" + stamp(), {"value.json": document({"title": "t"})})
    write_case("manifest-unknown-member", manifest("value", **{"x-app": {"note": 1}}), stream,
               {"resource": "value", "forks": {"main": {"value": {"title": "t"}}}})


def tables():
    numbers = [
        ("0", "0"), ("-0", "0"), ("0.0", "0"), ("-0.0e7", "0"), ("0e99999999999", "0"), ("1.0", "1"), ("1e3", "1000"),
        ("100e-2", "1"), ("-2.50", "-2.5"), ("0.1", "0.1"), ("1e-5", "0.00001"), ("1e-7", "1e-7"), ("1.5e-7", "1.5e-7"),
        ("-12.5e-10", "-1.25e-9"), ("123.456", "123.456"), ("-0.000123", "-0.000123"),
        ("9007199254740992", "9007199254740992"), ("9007199254740992.0", "9007199254740992"),
        ("9.007199254740992e15", "9007199254740992"), ("9007199254740993.0", "9007199254740993"),
        ("12e19", "120000000000000000000"), ("1E+30", "1" + "0" * 30),
        ("12345678901234567890123", "12345678901234567890123"),
        ("1234567890123456789012.5", "1.2345678901234567890125e+21"),
        ("123456789012345678901.5", "123456789012345678901.5"), ("1e308", "1" + "0" * 308), ("4.9e-324", "4.9e-324"),
        ("0.1000000000000000055511151231257827", "0.1000000000000000055511151231257827"),
        ("1e309", None), ("1e-325", None), ("1E400", None), ("1e99999999999", None),
    ]
    rows = [{"literal": lit, "canonical": can} if can is not None else {"literal": lit, "refused": True}
            for lit, can in numbers]
    with open(os.path.join(HERE, "numbers.json"), "wb") as f:
        f.write(document(rows))

    ids = ["note-1", "Hello world", "inbox/2024\tdraft", "", "é", "e\u0301", "CON", "con", "Com1", "x" * 200, "É" * 60,
           "../etc/passwd", ".", "..", "a.json", "line\nbreak", "100%", "~/a~b", "😀", "NUL.txt"]
    with open(os.path.join(HERE, "record-paths.json"), "wb") as f:
        f.write(document([{"id": i, "path": record_path(i)} for i in ids]))

    stamp_lines = "Model-Version: 1\nFormat-Version: 1\n"
    stamp_trailers = [["Model-Version", "1"], ["Format-Version", "1"]]
    messages = [
        ("Save\n\n" + stamp_lines, "Save", stamp_trailers),
        ("(no message)\n\n" + stamp_lines, "(no message)", stamp_trailers),
        ("Title\n\nBody line\n\nMore body\n\n" + stamp_lines, "Title\n\nBody line\n\nMore body", stamp_trailers),
        ("Title\n\nSigned-off-by: someone\n\n" + stamp_lines, "Title\n\nSigned-off-by: someone", stamp_trailers),
        ("Title\n \t\n" + stamp_lines, "Title", stamp_trailers),
        ("Title\n\nModel-Version : 1\nformat-version:1\n", "Title", [["Model-Version", "1"], ["format-version", "1"]]),
        ("Title\n\n" + stamp_lines + "Merged-Fork: a\n  continued\n\tagain\n", "Title",
         stamp_trailers + [["Merged-Fork", "a continued again"]]),
        ("Title\n\n" + stamp_lines + "\n\n", "Title", stamp_trailers),
        ("Title\r\n\r\nModel-Version: 1\r\nFormat-Version: 1\r\n", "Title\r", stamp_trailers),
        (" ---\n----\n\n" + stamp_lines, " ---\n----", stamp_trailers),
        ("Just text\nno trailers", "Just text\nno trailers", []),
        ("Title\n\nonly free text here", "Title\n\nonly free text here", []),
        (stamp_lines, stamp_lines.rstrip("\n"), []),
        ("Title\n\v\n" + stamp_lines, "Title\n\v\n" + stamp_lines.rstrip("\n"), []),
        ("Title\n\nNote: x\f\n", "Title", [["Note", "x\f"]]),
        ("Title\n\nFoo: bar\n\v\n" + stamp_lines, None, None),
        ("Title\n\n" + stamp_lines + "\f\n", None, None),
        ("Title\n\n" + stamp_lines + "Conflicts:\n\tx\n", None, None),
        ("\n\nTitle\n\n" + stamp_lines, None, None),
        ("\n" + stamp_lines, None, None),
        ("Title\n---\nnot a patch\n\n" + stamp_lines, None, None),
        ("Title\n\n--- \n\n" + stamp_lines, None, None),
        ("Title\n# ------------------------ >8 ------------------------\n\n" + stamp_lines, None, None),
        ("Title\n\n" + stamp_lines + "\n# a comment\n", None, None),
        ("Title\n\n" + stamp_lines + "free text\n", None, None),
        ("Title\n\n  indented first\n" + stamp_lines, None, None),
        ("Title\n\n" + stamp_lines + "# comment inside\n", None, None),
    ]
    rows = []
    for message, text, trailers in messages:
        if trailers is None:
            rows.append({"message": message, "malformed": True})
        else:
            rows.append({"message": message, "text": text, "trailers": trailers})
    with open(os.path.join(HERE, "messages.json"), "wb") as f:
        f.write(document(rows))


if __name__ == "__main__":
    shutil.rmtree(os.path.join(HERE, "stores"), ignore_errors=True)
    records_cases()
    checkpoint_case()
    assets_case()
    value_cases()
    manifest_cases()
    tables()
    print("wrote", os.path.relpath(HERE))
