// make bench: the paths a user of the published SDK (e2b@2.51.0, unchanged) would take, to
// compare e2b-tui with in the same run against e2b-local.
//   node sdk_paths.js up DIR BOXDIR [SERVE [PORT]]
//                                         create a sandbox, write every file of DIR (work tree
//                                         and .git) to BOXDIR with multipart files.write in
//                                         batches of 100, restore exec bits; prints
//                                         "seconds SANDBOX_ID" (the sandbox is left running).
//                                         With SERVE (a shell command) also what e2b-tui's up
//                                         does after that: start the server in BOXDIR in the
//                                         background (password in its env) and poll
//                                         GET /api/health on PORT (4096) every 50 ms until 2xx
//                                         (0.5 s a probe: the server never answers some
//                                         that come as it starts to listen);
//                                         prints "files_seconds total_seconds SANDBOX_ID"
//   node sdk_paths.js pull ID BOXDIR OUT  the by-hand pull: a scratch commit in a private
//                                         index, git bundle create, download to OUT; prints
//                                         "seconds" (the caller's git fetch is timed apart)
// The server comes from E2B_API_URL, E2B_SANDBOX_URL, E2B_DOMAIN, E2B_API_KEY; the SDK from
// E2B_SDK_DIR.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const path = require('path');
const e2b = require(path.resolve(process.env.E2B_SDK_DIR, 'node_modules', 'e2b'));
const { Sandbox } = e2b;

function walk(dir, rel, out) {
    for (const ent of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
        const r = rel ? `${rel}/${ent.name}` : ent.name;
        if (ent.isDirectory()) walk(dir, r, out);
        else if (ent.isFile()) out.push(r);
    }
    return out;
}

// One GET of the server's health through e2b-local's port proxy (its host names are
// subdomains of localhost, which Node does not resolve: the Host header says which box).
function healthOnce(host, auth) {
    const [name, port] = host.split(':');
    return new Promise((resolve) => {
        const req = http.get({ host: '127.0.0.1', port: Number(port || 80), path: '/api/health',
                               headers: { Host: `${name}:${port}`, Authorization: auth },
                               timeout: 500 }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode >= 200 && res.statusCode < 300));
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve(false));
    });
}

async function serve(sbx, boxdir, cmd, port) {
    const pw = crypto.randomBytes(16).toString('hex');
    await sbx.commands.run(cmd.replace(/\{port\}/g, String(port)),
                           { background: true, cwd: boxdir,
                             envs: { OPENCODE_SERVER_PASSWORD: pw } });
    const host = sbx.getHost(port);
    const auth = 'Basic ' + Buffer.from(`opencode:${pw}`).toString('base64');
    const end = Date.now() + 90 * 1000;
    while (!(await healthOnce(host, auth))) {
        if (Date.now() > end) throw new Error('the server did not become healthy in 90 s');
        await new Promise((r) => setTimeout(r, 50));
    }
}

async function up(dir, boxdir, serveCmd, port) {
    const t0 = process.hrtime.bigint();
    const sbx = await Sandbox.create('base', { timeoutMs: 3600 * 1000 });
    const files = walk(dir, '', []);
    const exec = [];
    for (let i = 0; i < files.length; i += 100) {
        const batch = files.slice(i, i + 100).map((f) => {
            const full = path.join(dir, f);
            if (fs.statSync(full).mode & 0o100) exec.push(`${boxdir}/${f}`);
            return { path: `${boxdir}/${f}`, data: fs.readFileSync(full) };
        });
        await sbx.files.write(batch);
    }
    if (exec.length)
        await sbx.commands.run(`chmod +x -- ${exec.map((p) => `'${p}'`).join(' ')}`);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (!serveCmd) {
        console.log(`${s.toFixed(3)} ${sbx.sandboxId}`);
        return;
    }
    await serve(sbx, boxdir, serveCmd, Number(port || 4096));
    const all = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`${s.toFixed(3)} ${all.toFixed(3)} ${sbx.sandboxId}`);
}

async function pull(id, boxdir, out) {
    const t0 = process.hrtime.bigint();
    const sbx = await Sandbox.connect(id);
    const script = `set -e; cd '${boxdir}'; t=$(mktemp -d); cp .git/index "$t/index";
        export GIT_INDEX_FILE="$t/index"; git add -A; tree=$(git write-tree); unset GIT_INDEX_FILE;
        c=$(git -c user.name=b -c user.email=b@x commit-tree -p HEAD -m wip "$tree");
        git update-ref refs/scratch "$c"; git bundle create "$t/b.bundle" refs/scratch ^HEAD >/dev/null 2>&1;
        git update-ref -d refs/scratch; echo "$t/b.bundle"`;
    const r = await sbx.commands.run(script, { timeoutMs: 600 * 1000 });
    const bundle = r.stdout.trim();
    const data = await sbx.files.read(bundle, { format: 'bytes' });
    fs.writeFileSync(out, data);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(s.toFixed(3));
}

const [mode, a, b, c, d] = process.argv.slice(2);
(mode === 'up' ? up(a, b, c, d) : pull(a, b, c)).catch((err) => {
    console.error(`sdk ${mode}: ${err && err.name}: ${err && err.message}`);
    process.exit(1);
});
