#!/usr/bin/env python3
"""Writes the fuzz seed corpora (Fuzz/Corpus/<target>/) from Schema/conformance and a fresh
Ed25519 key. Run from the package root; the files it writes are committed, so this only needs
running again when the conformance corpus grows."""
import base64, glob, hashlib, json, os, re, subprocess, tempfile

root = os.path.dirname(os.path.abspath(__file__))
conformance = os.path.join(root, "..", "..", "Schema", "conformance")

def write(target, content, name=None):
    folder = os.path.join(root, target)
    os.makedirs(folder, exist_ok=True)
    data = content.encode() if isinstance(content, str) else content
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)

def fast_import_data(path):
    """The `data <n>` payloads of a git fast-import stream: commit messages and blobs."""
    blob = open(path, "rb").read()
    out, i = [], 0
    for m in re.finditer(rb"^data (\d+)\n", blob, re.M):
        start = m.end()
        if start < i:
            continue
        n = int(m.group(1))
        out.append((blob[m.start() - 200:m.start()], blob[start:start + n]))
        i = start + n
    return out

for name in ["messages.json", "numbers.json", "record-paths.json"]:
    text = open(os.path.join(conformance, name), "rb").read()
    write("json", text, name)
    write("json-value-decoder", text, name)
for case in json.load(open(os.path.join(conformance, "numbers.json"))):
    write("canonical-numbers", case["literal"])
for case in json.load(open(os.path.join(conformance, "messages.json"))):
    write("commit-message", case["message"])
for case in json.load(open(os.path.join(conformance, "record-paths.json"))):
    write("record-path", case["id"])
    write("record-path", case["path"])
for path in sorted(glob.glob(os.path.join(conformance, "stores", "*", "forkstore.json"))):
    write("manifest", open(path, "rb").read())
for path in sorted(glob.glob(os.path.join(conformance, "stores", "*", "import.fi"))):
    for before, payload in fast_import_data(path):
        if b"\ncommitter " in before[-120:]:
            write("commit-message", payload)
        elif len(payload) < 2000:
            write("json", payload)
            write("json-value-decoder", payload)
for text in ['{"title":"a","count":-12,"small":127,"unsigned":4294967295,"ratio":1.5e-3,"date":1e9,'
             '"data":"AAEC","url":"https://example.com/a?b","price":12.345,"tags":["x","é"],"nested":{"k":[1,2]}}',
             '[null,true,false,0,-0.0,1E+2,"\\u00e9\\ud83d\\ude00\\n",{"a":{}},[]]', '"\\u0000"', "\ufeff{}",
             # Underflow to zero: JSONDecoder refuses it (found by fuzzing, 2026-11-25).
             '{"ratio":1.5e-63}', '[1e-400]',
             # An integer through a double, as JSONDecoder reads it (found by fuzzing, 2026-11-26).
             '{"count":4294967295999999.99999995e-3}']:
    write("json", text)
    write("json-value-decoder", text)

# Asset references (FORMAT.md 13.1): the corpus's blobs that hold one, and the shapes the scan
# must tell apart.
for path in sorted(glob.glob(os.path.join(conformance, "stores", "*", "import.fi"))):
    for _, payload in fast_import_data(path):
        if b'"$asset"' in payload:
            write("asset-references", payload)
hex_id = hashlib.sha256(b"cat").hexdigest()
for text in ['{"$asset":"sha256:%s","mediaType":"image/jpeg","name":"cat.jpg","size":3}' % hex_id,
             '[{"$asset":"sha256:%s","size":3},{"x":{"$asset":"sha256:%s","size":0,"later":{"$asset":1}}}]' % (hex_id, hex_id),
             '{"$asset":"sha256:%s","size":3}' % hex_id.upper(), '{"$asset":"%s","size":3}' % hex_id,
             '{"$asset":"sha256:%s","size":-1}' % hex_id, '{"$asset":"sha256:%s","size":1.5}' % hex_id,
             '{"$asset":"sha256:%s","size":9223372036854775808}' % hex_id, '{"$asset":"sha256:%s","size":"3"}' % hex_id,
             '{"$asset":"sha256:%s","size":3,"name":"a/b"}' % hex_id, '{"$asset":"sha256:%s"}' % hex_id,
             '{"\\u0024asset":"sha256:%s","size":3}' % hex_id, '{"a":"\\u0024asset","b":"$asset"}']:
    write("asset-references", text)

with tempfile.TemporaryDirectory() as tmp:
    key = os.path.join(tmp, "key")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "fuzz@example", "-f", key], check=True)
    pub = open(key + ".pub", "rb").read()
    private = open(key, "rb").read()
    content = os.path.join(tmp, "content")
    open(content, "wb").write(b"fuzz")
    subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "git", "-f", key, content], check=True)
    signature = open(content + ".sig", "rb").read()
    unarmor = lambda text: base64.b64decode(b"".join(l for l in text.splitlines() if not l.startswith(b"-----")))
    write("ssh", b"\x00" + pub, "public-key-line")
    write("ssh", b"\x01" + base64.b64decode(pub.split()[1]), "public-key-blob")
    write("ssh", b"\x02" + unarmor(private), "private-key-wire")
    write("ssh", b"\x03" + unarmor(signature), "signature-wire")
    write("ssh", b"\x04" + private, "private-key-text")
    write("ssh", b"\x04" + signature, "signature-text")

# Git LFS batch answers (lfs-batch): giftless 0.6.2's own (tokens shortened), and malformed ones.
# The fuzz target asks about the SHA-256 of "a" and of "b", one byte each.
lfs_a = hashlib.sha256(b"a").hexdigest()
lfs_b = hashlib.sha256(b"b").hexdigest()
lfs_href = "http://127.0.0.1:18555/org/repo/objects/storage/"
for text in [
        '{"transfer": "basic", "objects": [{"oid": "%s", "size": 1, "actions": {"upload": {"href": "%s%s", "header": {"Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x"}, "expires_in": 900}, "verify": {"href": "%sverify", "header": {"Authorization": "Bearer eyJ9.e30.y"}, "expires_in": 43200}}, "authenticated": true}, {"oid": "%s", "size": 1}]}' % (lfs_a, lfs_href, lfs_a, lfs_href, lfs_b),
        '{"transfer": "basic", "objects": [{"oid": "%s", "size": 1, "actions": {"download": {"href": "%s%s?jwt=eyJ9.e30.z", "header": {}, "expires_in": 900}}, "authenticated": true}, {"oid": "%s", "size": 1, "error": {"code": 404, "message": "Object does not exist"}}]}' % (lfs_a, lfs_href, lfs_a, lfs_b),
        '{"objects": [{"oid": "%s", "size": 1, "actions": {"download": {"href": "https://[::1]:8443/o", "expires_at": "2030-01-01T00:00:00Z"}}}, {"oid": "%s", "size": 1, "actions": {"download": {"href": "http://example.com/%%2e%%2e/o", "header": {"X-A": "b\\tc"}}}}]}' % (lfs_a, lfs_b),
        '{"objects": [{"oid": "%s", "size": 1, "actions": {"download": {"href": "file:///etc/passwd"}}}, {"oid": "%s", "size": 2}]}' % (lfs_a, lfs_b),
        '{"objects": [{"oid": "%s", "size": 1, "actions": {"download": {"href": "http://u:p@h/o", "header": {"Content-Length": "1", "X": "a\\r\\nB: c"}}}}]}' % lfs_a,
        '{"transfer": "ssh", "objects": []}', '{"objects": {}}', '[]', '{"objects": [{"oid": "%s", "size": "1"}]}' % lfs_a.upper(),
        '{"message": "404 Not Found"}']:
    write("lfs-batch", text)

# Commit headers (commit-header): a root, a child, a merge, and near misses.
tree, parent = "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "0123456789abcdef0123456789abcdef01234567"
who = "A <a@example.com> 1700000000 +0000"
for text in [
        "tree %s\nauthor %s\ncommitter %s\n\nroot\n" % (tree, who, who),
        "tree %s\nparent %s\nauthor %s\ncommitter %s\n\nchild\n" % (tree, parent, who, who),
        "tree %s\nparent %s\nparent %s\nauthor %s\n" % (tree, parent, tree, who),
        "tree %s\nparent %s\n" % (tree, parent.upper()),
        "tree %s\nparent %s\n" % (tree, parent[:39] + "g"),
        "tree %s\nencoding x\nauthor %s\n" % (tree, who),
        "tree %s\r\nparent %s\n" % (tree[:39], parent)]:
    write("commit-header", text)

# Packs read back (pack-reader): two bytes saying which byte of the written pack to flip, a
# mask, then objects split at 0xFF (an even-sized one after another is written as a delta).
for data in [
        b"\x00\x20\x01hello world\xffhello world, again\xff{\"id\": \"a\"}\n",
        b"\x01\x00\x40" + b"abcdef" * 3 + b"\xff" + b"abcdef" * 3 + b"ab",
        b"\xff\xff\x80" + bytes(range(0, 255)) + b"\xff" + bytes(range(0, 254))]:
    write("pack-reader", data)
