#!/usr/bin/env python3
"""A scripted model: an OpenAI-compatible streaming POST /v1/chat/completions in the Python
standard library, for running the real OpenCode server offline (tests, benchmarks, the demo).

    python3 scripted_model.py --port 8111 --script script.json [--log requests.jsonl]

Point OpenCode at it with a provider entry (see tests/lib/agent.sh, agent_opencode_json):
    {"provider":{"mock":{"npm":"@ai-sdk/openai-compatible","name":"Mock",
     "options":{"baseURL":"http://127.0.0.1:8111/v1","apiKey":"x"},"models":{"m1":{}}}},
     "model":"mock/m1","small_model":"mock/m1"}

The script (JSON) is a list of steps, or {"title": "...", "steps": [...]}. Every request that
carries tools (an agent step) answers with the next step; requests without tools (the title
OpenCode asks for untitled sessions) answer with the title (default "Scripted session"). When
the steps run out the answer is the text "Done." The script file is read again at each
request: when its content changed, the steps start again from the first (so a test can give
each scenario its own script while the server runs). {"by_model": {"m2": SCRIPT, ...}} gives
the agent requests for model m2 their own script (a list of steps or {"title","steps"}); the
document's own steps answer every other model.

A step is one of:
    {"text": "Hello"}                         streamed text, then finish "stop"
    {"text": ["A", {"repeat": "x", "count": 100000}, "B"]}   text made of pieces
    {"tool": "bash", "args": {"command": "echo hi > note.txt", "description": "write"}}
    {"tools": [{"tool": "todowrite", "args": {...}}, ...]}    several calls in one step
    {"error": {"status": 500, "type": "server_error", "message": "overloaded"}}
and may add
    "times": N        the step answers N requests (default 1; an error retried N times)
    "delay": S        seconds before the answer starts
    "chunk_delay": S  seconds between streamed chunks
    "stream_seconds": S   the text's chunks spread evenly over S seconds by the clock: a
                      chunk waits only while it is ahead of its time, so on a loaded machine
                      the stream catches up instead of growing by a sleep's latency per chunk
    "hang": true      after the text, send nothing more and keep the connection open
    "usage": {"prompt_tokens": 10, "completion_tokens": 5}   (default small numbers)
A step with text and a tool streams the text first. Each request is logged as one JSON line
(--log): its number, whether it was a title request, the step index answered, the roles of
its messages, the tool results it carried, its Host header and the SHA-256 of its
Authorization header (never the header itself).
"""
import argparse
import hashlib
import http.server
import json
import socketserver
import sys
import threading
import time

LOCK = threading.Lock()
STATE = {"digest": None, "pos": 0, "left": None, "n": 0}


def load(path, model=None):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:  # no script yet: every request is answered "Done."
        raw = b"[]"
    doc = json.loads(raw.decode() or "[]")
    if isinstance(doc, list):
        doc = {"steps": doc}
    by_model = doc.get("by_model")
    if model and isinstance(by_model, dict) and model in by_model:
        doc = by_model[model]
        if isinstance(doc, list):
            doc = {"steps": doc}
    return hashlib.sha256(raw + (model or "").encode()).hexdigest(), doc


def next_step(path, model=None):
    """The step that answers the next agent request (None: the script is used up)."""
    digest, doc = load(path, model)
    steps = doc.get("steps", [])
    with LOCK:
        if digest != STATE["digest"]:
            STATE.update(digest=digest, pos=0, left=None)
        while STATE["pos"] < len(steps):
            step = steps[STATE["pos"]]
            if STATE["left"] is None:
                STATE["left"] = int(step.get("times", 1))
            if STATE["left"] > 0:
                STATE["left"] -= 1
                idx = STATE["pos"]
                if STATE["left"] == 0:
                    STATE["pos"] += 1
                    STATE["left"] = None
                return idx, step, doc
            STATE["pos"] += 1
            STATE["left"] = None
        return None, None, doc


def text_of(t):
    if t is None:
        return ""
    if isinstance(t, str):
        return t
    out = []
    for piece in t:
        if isinstance(piece, str):
            out.append(piece)
        else:
            out.append(str(piece.get("repeat", "")) * int(piece.get("count", 1)))
    return "".join(out)


def chunks(s, size=48):
    return [s[i:i + size] for i in range(0, len(s), size)] or []


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script = None
    log = None

    def log_message(self, fmt, *args):  # quiet: the request log is --log
        pass

    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": "m1", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def chunk(self, obj):
        data = b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            req = json.loads(self.rfile.read(n) or b"{}")
        except ValueError:
            req = {}
        msgs = req.get("messages") or []
        is_title = not req.get("tools")
        with LOCK:
            STATE["n"] += 1
            num = STATE["n"]
        if is_title:
            idx, step = None, None
            _, doc = load(self.script)
            step = {"text": doc.get("title", "Scripted session")}
        else:
            idx, step, doc = next_step(self.script, req.get("model"))
            if step is None:
                step = {"text": "Done."}
        if self.log:
            entry = {
                "n": num, "title": is_title, "step": idx, "model": req.get("model"),
                "roles": [m.get("role") for m in msgs],
                "tool_results": [str(m.get("content"))[:2000] for m in msgs if m.get("role") == "tool"],
                # what arrived as the key, hashed (the egress test compares it with the secret's)
                "auth_sha256": hashlib.sha256(self.headers["Authorization"].encode()).hexdigest()
                if self.headers.get("Authorization") else None,
                "host": self.headers.get("Host"),
            }
            with LOCK, open(self.log, "a") as f:
                f.write(json.dumps(entry) + "\n")
        if step.get("delay"):
            time.sleep(float(step["delay"]))
        err = step.get("error")
        if err:
            body = json.dumps({"error": {"message": err.get("message", "error"),
                                         "type": err.get("type", "server_error"),
                                         "code": err.get("code")}}).encode()
            self.send_response(int(err.get("status", 500)))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        cid = "chatcmpl-%d" % num
        base = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                "model": req.get("model", "m1")}
        cd = float(step.get("chunk_delay", 0))

        def emit(delta, finish=None):
            self.chunk(dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}]))
            if cd:
                time.sleep(cd)

        try:
            emit({"role": "assistant", "content": ""})
            pieces = chunks(text_of(step.get("text")))
            spread = float(step.get("stream_seconds", 0))
            start = time.monotonic()
            for i, piece in enumerate(pieces):
                ahead = start + spread * i / len(pieces) - time.monotonic() if spread else 0
                if ahead > 0:
                    time.sleep(ahead)
                emit({"content": piece})
            if step.get("hang"):
                while True:  # until the client goes away
                    time.sleep(1)
                    self.wfile.write(b"")
                    self.wfile.flush()
            calls = step.get("tools") or ([{"tool": step["tool"], "args": step.get("args", {})}]
                                          if step.get("tool") else [])
            for i, c in enumerate(calls):
                args = json.dumps(c.get("args", {}))
                emit({"tool_calls": [{"index": i, "id": "call_%d_%d" % (num, i), "type": "function",
                                      "function": {"name": c["tool"], "arguments": ""}}]})
                for piece in chunks(args):
                    emit({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
            emit({}, "tool_calls" if calls else "stop")
            usage = step.get("usage") or {"prompt_tokens": 12, "completion_tokens": 7}
            usage = dict(usage, total_tokens=usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0))
            self.chunk(dict(base, choices=[], usage=usage))
            self.chunk(b"[DONE]")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=8111)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--script", required=True)
    ap.add_argument("--log")
    a = ap.parse_args()
    Handler.script, Handler.log = a.script, a.log
    srv = Server((a.host, a.port), Handler)
    print("scripted model listening on %s:%d" % (a.host, srv.server_address[1]), flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
