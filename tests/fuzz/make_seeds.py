#!/usr/bin/env python3
"""Writes the hand-made seed corpora of tests/fuzz/corpus/<target>/ (run from the top of the
tree; the files are committed, so this is only needed to change them). Bundle seeds come from
`git bundle create` on a throw-away two-commit repository, cut after a few bytes of pack."""
import json, os, struct, subprocess, tempfile

ROOT = os.path.join("tests", "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def env(flags, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return struct.pack(">BI", flags, len(payload)) + payload


def j(obj):
    return json.dumps(obj, separators=(",", ":"))


# ---- Connect envelopes and process streams (reference §2.5, §2.6) ----
start = j({"event": {"start": {"pid": 42}}})
out = j({"event": {"data": {"stdout": "aGVsbG8K"}}})
err = j({"event": {"data": {"stderr": "b29wcwo="}}})
pty = j({"event": {"data": {"pty": "G1szMm1vaw=="}}})
keep = j({"event": {"keepalive": {}}})
end0 = j({"event": {"end": {"exitCode": 0, "exited": True, "status": "exit status 0"}}})
end1 = j({"event": {"end": {"exitCode": 1, "exited": True, "status": "exit status 1"}}})
killed = j({"event": {"end": {"exited": False, "status": "signal: killed", "error": "killed"}}})
ok_end = env(2, "{}")
err_end = env(2, j({"error": {"code": "not_found", "message": "process with pid 7 not found"}}))

put("connect", "one_message", env(0, start) + ok_end)
put("connect", "stream", env(0, start) + env(0, out) + env(0, end0) + ok_end)
put("connect", "error_end", err_end)
put("connect", "empty_payloads", env(0, "") + env(0, "") + env(2, ""))
put("connect", "end_with_metadata", env(0, "x") + env(2, j({"metadata": {"k": ["v"]}})))
put("connect", "truncated", (env(0, out) + ok_end)[:9])
put("connect", "compressed_flag", env(1, "{}"))

put("process_event", "run_ok", env(0, start) + env(0, out) + env(0, err) + env(0, keep) +
    env(0, end0) + ok_end)
put("process_event", "run_fail", env(0, start) + env(0, err) + env(0, end1) + ok_end)
put("process_event", "pty_killed", env(0, start) + env(0, pty) + env(0, killed) + ok_end)
put("process_event", "not_found", err_end)
put("process_event", "event_start", start)
put("process_event", "event_end", end1)
put("process_event", "unknown_event", env(0, start) + env(0, j({"event": {"future": {}}})) + ok_end)

# ---- JSON replies (reference §1) ----
listed = {"sandboxID": "iabc123", "templateID": "opencode", "alias": "opencode",
          "clientID": "6532622b", "cpuCount": 2, "memoryMB": 1024, "diskSizeMB": 4096,
          "envdVersion": "0.2.4", "startedAt": "2025-01-02T03:04:05.678Z",
          "endAt": "2025-01-02T04:04:05Z", "state": "running",
          "metadata": {"e2b-tui": "box", "e2b-tui.name": "feat-x",
                       "e2b-tui.branch": "feat/x", "e2b-tui.base": "0123abcd"}}
paused = {"sandboxID": "ipaused", "templateID": "opencode-e2b-proj", "cpuCount": -1,
          "memoryMB": -1, "state": "paused", "startedAt": "2025-01-02T03:04:05+02:00",
          "endAt": "2025-01-02T05:04:05+02:00", "metadata": {"opencode-workspace": "w1"}}
put("objects", "sandbox_list", j([listed, paused, {"sandboxID": "iother", "alias": None}]))
put("objects", "sandbox_list_empty", "[]")
detail = dict(listed, domain="e2b.app", envdAccessToken="tok", allowInternetAccess=True,
              lifecycle={"onTimeout": "pause", "autoResume": False})
put("objects", "sandbox_detail", j(detail))
put("objects", "sandbox_create", j({"sandboxID": "inew", "templateID": "opencode",
                                   "clientID": "x", "envdVersion": "0.2.4",
                                   "envdAccessToken": "secret", "trafficAccessToken": None,
                                   "domain": None}))
put("objects", "secrets", j([{"secretID": "s1", "name": "ANTHROPIC_API_KEY", "currentVersion": 3,
                            "metadata": {"by": "e2b-tui"},
                            "createdAt": "2025-05-01T10:00:00Z",
                            "updatedAt": "2025-05-02T10:00:00.5Z"},
                           {"secretID": "s2", "name": "OPENAI_API_KEY", "currentVersion": 1}]))
put("objects", "metrics", j([{"timestampUnix": 1700000000, "timestamp": "2023-11-14T22:13:20Z",
                            "cpuCount": 2, "cpuUsedPct": 12.5, "memUsed": 1048576,
                            "memTotal": 2097152, "memCache": 0, "diskUsed": 10,
                            "diskTotal": 20}]))
put("objects", "metrics_bulk", j({"sandboxes": {"i1": {"timestampUnix": 1, "cpuUsedPct": 50.0},
                                               "i2": {"timestampUnix": 2, "memUsed": 5}}}))
put("objects", "logs", j({"logs": [{"timestamp": "2025-03-04T05:06:07.250Z", "level": "warn",
                                  "message": "disk low", "fields": {"logger": "envd"}},
                                 {"timestamp": "2025-03-04T05:06:08Z", "message": ""}]}))
put("objects", "processes", j({"processes": [{"pid": 7, "tag": "opencode",
                                            "config": {"cmd": "/bin/bash",
                                                       "args": ["-lc", "opencode serve"],
                                                       "cwd": "/home/user"}}]}))
put("objects", "error_body", j({"code": 404, "message": "sandbox not found",
                              "error_code": "not_found"}))
put("objects", "connect_error_body", j({"code": "unavailable", "message": "envd is starting"}))
put("objects", "time", "2025-01-02T03:04:05.123+05:30")

# ---- config file (man/e2b-tui.1, CONFIGURATION) ----
put("config", "full", """# e2b-tui config
domain = localhost:3000
api_url = "http://127.0.0.1:3000"
template = opencode
hours = 2
refresh = 5
opencode = 1
keystore = file
workspace_keys = opencode-workspace,workspaceID
serve_command = "opencode serve --port {port} --hostname 0.0.0.0"
attach_command = opencode attach {url} --dir {dir}
health_path = /global/health
""")
put("config", "minimal", "domain = e2b.app\n")
put("config", "sandbox_url", "sandbox_url = http://127.0.0.1:49983\nhours=24\n")
put("config", "bad_line", "hours = 1\nthis is not a setting\n")

# ---- display sanitiser ----
put("sanitize", "ascii", "feat-x: running")
put("sanitize", "escapes", b"\x1b[31mred\x1b[0m\x07\r\n\ttab\x7f\xc2\x9b2J")
put("sanitize", "utf8", "caf\u00e9 \u65e5\u672c \U0001f600 \u202eevil\u202c \u2066iso\u2069")
put("sanitize", "invalid_utf8", b"\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82 \xff\x00end")

# ---- keystore password file ----
put("keystore_file", "two_entries",
    "# e2b-tui box passwords: keep this file private (mode 0600)\n"
    "feat-x\tiabc123\tp4ss%20word%25\nother\tidef\tx\n")
put("keystore_file", "escapes", "b%09ox\ts%0Aid\tp%7F%25\n\n# comment\n")

# ---- pull script output ----
c = "0123456789abcdef0123456789abcdef01234567"
put("pull_script", "bundle", "some git noise\nE2B-TUI-BUNDLE %s full 1234 /tmp/e2b-tui.b\n" % c)
put("pull_script", "thin", "E2B-TUI-BUNDLE %s thin 99 /tmp/x y.bundle" % c)
put("pull_script", "nowork", "E2B-TUI-NOWORK %s\n" % c)
put("pull_script", "error", "E2B-TUI-ERROR not a git repository: /home/user/proj\n")

# ---- changes script output (list and summary) ----
h = "E2B-TUI-CHANGES\tbase\t%s\0" % c
put("changes", "list", h + "S\tM\tedit.txt\0N\t2\t1\tedit.txt\0S\tA\tnew bin\0N\t-\t-\tnew bin\0"
    "U\tuntracked.txt\0E2B-TUI-END\0")
put("changes", "summary_pulled", "E2B-TUI-CHANGES\tpulled\t%s\0K\t3\0H\tM\t%s\tsrc/a.c\0"
    "H\tD\t-\tgone.txt\0E2B-TUI-END\0" % (c, c))
put("changes", "summary_head_cut", "E2B-TUI-CHANGES\thead\t%s\0K\t-\0H\tA\t%s\tn" % (c, c))
put("changes", "empty_tree", "E2B-TUI-CHANGES\tempty\t\0U\ta\0E2B-TUI-END\0")
put("changes", "error", "E2B-TUI-ERROR\tgit is not installed in the box\0")

# ---- base64 ----
put("base64", "padded", "aGVsbG8gd29ybGQ=")
put("base64", "unpadded", "aGk")
put("base64", "all_bytes", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v+/8=")

# ---- git bundles: a header plus the first bytes of the pack ----
with tempfile.TemporaryDirectory() as tmp:
    def git(*args):
        return subprocess.run(["git", "-C", tmp, "-c", "user.name=f", "-c", "user.email=f@f"] +
                              list(args), check=True, capture_output=True).stdout
    git("init", "-q", "-b", "main")
    with open(os.path.join(tmp, "a"), "w") as f:
        f.write("one\n")
    git("add", "a")
    git("commit", "-q", "-m", "one")
    with open(os.path.join(tmp, "a"), "w") as f:
        f.write("two\n")
    git("commit", "-q", "-am", "two")
    git("branch", "e2b/feat-x")
    for name, version, revs in [("v2_full", 2, ["main", "e2b/feat-x"]),
                                ("v2_thin", 2, ["HEAD~1..main"]),
                                ("v3_full", 3, ["main"])]:
        path = os.path.join(tmp, name + ".bundle")
        git("bundle", "create", "-q", "--version=%d" % version, path, *revs)
        data = open(path, "rb").read()
        head = data.index(b"\n\n") + 2
        put("bundle_header", name, data[:head + 16])

# ---- whole bundles for the import target (fuzz_bundle_import.c) ----
# The base commit "one" must be byte for byte the one fuzz_bundle_import.c makes with
# libgit2 (same file, message, identity and time), so thin seeds find their prerequisite.
with tempfile.TemporaryDirectory() as tmp:
    stamp = "1700000000 +0000"
    ident = dict(os.environ, GIT_AUTHOR_NAME="f", GIT_AUTHOR_EMAIL="f@f", GIT_AUTHOR_DATE=stamp,
                 GIT_COMMITTER_NAME="f", GIT_COMMITTER_EMAIL="f@f", GIT_COMMITTER_DATE=stamp)

    def git(*args):
        return subprocess.run(["git", "-C", tmp] + list(args), check=True, env=ident,
                              capture_output=True).stdout

    def write(name, text):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)

    def bundle(*revs, version=2):
        path = os.path.join(tmp, "b.bundle")
        git("bundle", "create", "-q", "--version=%d" % version, path, *revs)
        return open(path, "rb").read()

    git("init", "-q", "-b", "main")
    write("a", "one\n")
    git("add", "a")
    git("commit", "-q", "-m", "one")
    base = git("rev-parse", "HEAD").decode().strip()
    write("a", "two\n")
    write("b", "new file\n")
    git("add", "a", "b")
    git("commit", "-q", "-m", "two")
    git("update-ref", "refs/e2b-tui/scratch", "HEAD")
    git("tag", "x")
    write("a", "three\n")
    git("commit", "-q", "-am", "three")
    git("update-ref", "refs/e2b-tui/later", "HEAD")
    git("checkout", "-q", "--orphan", "stranger")
    write("a", "unrelated\n")
    git("add", "a")
    git("commit", "-q", "-m", "unrelated")
    git("update-ref", "refs/e2b-tui/stranger", "HEAD")
    git("checkout", "-q", "main")

    # The work on the scratch ref, plus refs the import must never write.
    full = bundle("refs/e2b-tui/scratch", "main", "HEAD", "refs/tags/x")
    put("bundle_import", "full_with_foreign_refs", full)
    put("bundle_import", "thin", bundle("%s..refs/e2b-tui/scratch" % base))
    put("bundle_import", "thin_v3", bundle("%s..refs/e2b-tui/scratch" % base, version=3))
    # A snapshot with no common history: diverged from e2b/fuzz when it is preset.
    stranger = bundle("refs/e2b-tui/stranger").replace(b"refs/e2b-tui/stranger",
                                                       b"refs/e2b-tui/scratch")
    put("bundle_import", "unrelated_history", stranger)
    # No scratch ref at all; a prerequisite the repository lacks.
    put("bundle_import", "no_scratch_ref", bundle("main"))
    later = bundle("refs/e2b-tui/scratch..refs/e2b-tui/later").replace(
        b"refs/e2b-tui/later", b"refs/e2b-tui/scratch")
    put("bundle_import", "missing_prerequisite", later)
    # Ref names that would escape refs/heads/e2b/ if they were ever written as refs.
    head_end = full.index(b"\n\n") + 1
    evil = full[:head_end].replace(b"refs/heads/main", b"refs/heads/../../x").replace(
        b"refs/tags/x", b"../../../etc/x") + full[head_end:]
    put("bundle_import", "traversal_ref_names", evil)
    # The scratch ref naming a tree, not a commit; a pack cut short; a flipped pack byte.
    tree = git("rev-parse", "refs/e2b-tui/scratch^{tree}")
    scratch = git("rev-parse", "refs/e2b-tui/scratch")
    put("bundle_import", "ref_is_a_tree", full.replace(scratch.strip(), tree.strip(), 1))
    put("bundle_import", "truncated_pack", full[:len(full) - 30])
    flipped = bytearray(full)
    flipped[head_end + 40] ^= 0x55
    put("bundle_import", "corrupt_pack", bytes(flipped))
    # Trees nested just over and just at the cap the target sets (limit.tree_depth = 64 in
    # fuzz_bundle_import.c, so that such bundles fit in an input), from the generator the
    # tests use (tests/fixtures/deep_bundle.py).
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "deep_bundle.py")
    for name, depth in (("deep_trees_over_cap", 65), ("deep_trees_at_cap", 64)):
        out = os.path.join(tmp, name)
        subprocess.run(["python3", gen, str(depth), out], check=True, capture_output=True)
        put("bundle_import", name, open(out, "rb").read())
    # Packs that declare more than they carry (issue 29), on either side of the small caps the
    # target sets (limit.object_bytes 64K, limit.inflated_bytes 1M, limit.delta_depth 16 in
    # fuzz_bundle_import.c), from tests/fixtures/pack_bomb.py; the "_fits" ones import.
    bomb = os.path.join(os.path.dirname(gen), "pack_bomb.py")
    for name, args in (("bomb_huge_delta", ["huge-delta", "1M"]),
                       ("bomb_delta_fits", ["huge-delta", "64K", "--hash"]),
                       ("bomb_many_deltas", ["many-deltas", "20", "60K"]),
                       ("bomb_many_deltas_fit", ["many-deltas", "4", "60K", "--hash"]),
                       ("bomb_deep_chain", ["chain", "17", "1K"]),
                       ("bomb_chain_at_cap", ["chain", "16", "1K", "--hash"]),
                       ("bomb_lying_blob", ["lying-blob", "1K", "200K"]),
                       ("bomb_huge_blob", ["huge-blob", "1M"])):
        out = os.path.join(tmp, name)
        subprocess.run(["python3", bomb, args[0], out] + args[1:], check=True, capture_output=True)
        put("bundle_import", name, open(out, "rb").read())

# ---- pack_rewrite: a pack (and its index) with deltas, some of whose bases are dropped ----
# A file of 300 lines in six versions and an amended commit, packed by git gc (OFS_DELTA)
# or by pack-objects without offsets (REF_DELTA), reflog objects included.
for how in ("ofs", "ref"):
    with tempfile.TemporaryDirectory() as tmp:
        def git(*args, stdin=None):
            return subprocess.run(["git", "-C", tmp, "-c", "user.name=f", "-c", "user.email=f@f"] +
                                  list(args), check=True, capture_output=True, input=stdin).stdout
        git("init", "-q", "-b", "main")
        lines = ["line %d %s" % (i, "x" * (10 + i * 7 % 50)) for i in range(300)]
        for i in range(6):
            if i:
                lines[i * 40] += " edit %d" % i
            with open(os.path.join(tmp, "f"), "w") as f:
                f.write("\n".join(lines) + "\n")
            git("add", "f")
            git("commit", "-q", "-m", "c%d" % i)
        lines[10] += " amended"
        with open(os.path.join(tmp, "f"), "w") as f:
            f.write("\n".join(lines) + "\n")
        git("commit", "-q", "-a", "--amend", "-m", "c5b")
        if how == "ofs":
            git("gc", "-q")
        else:
            objs = git("rev-list", "--objects", "--all", "--reflog")
            git("pack-objects", "-q", os.path.join(tmp, ".git", "objects", "pack", "pack"), stdin=objs)
        pdir = os.path.join(tmp, ".git", "objects", "pack")
        stem = [n for n in os.listdir(pdir) if n.endswith(".pack")][0][:-5]
        idx = open(os.path.join(pdir, stem + ".idx"), "rb").read()
        pack = open(os.path.join(pdir, stem + ".pack"), "rb").read()
        for flags, keep in ((0, 0), (0, 1), (1, 0)):
            put("pack_rewrite", "%s_keep%d_flags%d" % (how, keep, flags),
                bytes([flags, keep]) + struct.pack(">I", len(idx)) + idx + pack)
