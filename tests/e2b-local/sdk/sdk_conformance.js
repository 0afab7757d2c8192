// Runs the published E2B JS SDK (e2b@2.51.0), unchanged, against e2b-local.
// The SDK finds the server through the environment the shell test sets:
// E2B_API_URL, E2B_SANDBOX_URL, E2B_DOMAIN and E2B_API_KEY. E2B_SDK_DIR is where the
// test installed the package. Every check prints "PASS sdk: name" or "FAIL sdk: name: why".
'use strict';

const { e2b, reporter, show, drain } = require('./sdk_common');
const { Sandbox, Secret, CommandExitError, SandboxNotFoundError, NotFoundError,
    FileNotFoundError, AuthenticationError, SecretNotFoundError, TimeoutError } = e2b;

const { pass, fail, check, step, failed } = reporter('sdk');

async function expectThrow(fn, klass) {
    try {
        await fn();
    } catch (err) {
        if (!klass || err instanceof klass) return true;
        return `threw ${err.name}: ${err.message}, want ${klass.name}`;
    }
    return `did not throw (want ${klass ? klass.name : 'an error'})`;
}

async function main() {
    const run = `r${process.pid}${Date.now() % 100000}`;
    let sbx;

    await step('Sandbox.create returns a sandbox with an id', async () => {
        sbx = await Sandbox.create('base', {
            metadata: { suite: 'sdk', run },
            envs: { SDK_GLOBAL: 'from-create' },
            timeoutMs: 120000,
        });
        return sbx.sandboxId ? true : `no sandboxId in ${show(sbx)}`;
    });
    if (!sbx) return;

    await step('getInfo reports running, template, metadata and a 120 s lifetime', async () => {
        const info = await sbx.getInfo();
        if (info.sandboxId !== sbx.sandboxId) return `sandboxId ${info.sandboxId}`;
        if (info.state !== 'running') return `state ${info.state}`;
        if (info.metadata.suite !== 'sdk' || info.metadata.run !== run) return `metadata ${show(info.metadata)}`;
        if (!info.templateId) return 'no templateId';
        if (!info.envdVersion) return 'no envdVersion';
        const life = (info.endAt - info.startedAt) / 1000;
        if (!(life > 100 && life < 140)) return `endAt - startedAt = ${life}s, want about 120`;
        return true;
    });

    await step('Sandbox.getInfo (static) agrees with the instance', async () => {
        const info = await Sandbox.getInfo(sbx.sandboxId);
        return info.sandboxId === sbx.sandboxId && info.state === 'running' ? true : show(info);
    });

    await step('isRunning is true (envd /health through E2B_SANDBOX_URL)', async () =>
        (await sbx.isRunning()) === true ? true : 'isRunning returned false');

    // --- commands ---
    await step('commands.run foreground: stdout, stderr, exit 0', async () => {
        const r = await sbx.commands.run('echo hello; echo oops >&2');
        if (r.exitCode !== 0) return `exitCode ${r.exitCode}`;
        if (r.stdout !== 'hello\n') return `stdout ${show(r.stdout)}`;
        if (r.stderr !== 'oops\n') return `stderr ${show(r.stderr)}`;
        return true;
    });

    await step('commands.run non-zero exit throws CommandExitError with the code', async () => {
        try {
            await sbx.commands.run('echo bye; exit 3');
        } catch (err) {
            if (!(err instanceof CommandExitError)) return `threw ${err.name}: ${err.message}`;
            if (err.exitCode !== 3) return `exitCode ${err.exitCode}`;
            return err.stdout === 'bye\n' ? true : `stdout ${show(err.stdout)}`;
        }
        return 'did not throw';
    });

    await step('commands.run honours cwd, envs and the sandbox envVars', async () => {
        const r = await sbx.commands.run('pwd; echo "$SDK_LOCAL $SDK_GLOBAL"; echo "$USER $HOME"', {
            cwd: '/tmp', envs: { SDK_LOCAL: 'from-run' },
        });
        const want = '/tmp\nfrom-run from-create\nuser /home/user\n';
        return r.stdout === want ? true : `stdout ${show(r.stdout)}, want ${show(want)}`;
    });

    await step('commands.run as root', async () => {
        const r = await sbx.commands.run('id -u', { user: 'root' });
        return r.stdout.trim() === '0' ? true : `id -u printed ${show(r.stdout)}`;
    });

    await step('commands.run streams output to onStdout as it comes', async () => {
        const chunks = [];
        const r = await sbx.commands.run('for i in 1 2 3; do echo line$i; done',
            { onStdout: (d) => chunks.push(d) });
        const joined = chunks.join('');
        return joined === r.stdout && joined === 'line1\nline2\nline3\n' ? true : show(chunks);
    });

    await step('commands.run background: handle, list, kill, wait', async () => {
        const h = await sbx.commands.run('sleep 60', { background: true });
        if (!(h.pid > 0)) return `pid ${h.pid}`;
        const listed = await sbx.commands.list();
        if (!listed.some((p) => p.pid === h.pid)) return `pid ${h.pid} not in commands.list ${show(listed)}`;
        const killed = await h.kill();
        if (killed !== true) return `kill returned ${killed}`;
        let ended = false;
        try {
            const r = await h.wait();
            return `wait resolved with exitCode ${r.exitCode} for a killed process`;
        } catch (err) {
            ended = err instanceof CommandExitError;
            if (!ended) return `wait threw ${err.name}: ${err.message}`;
        }
        const after = await sbx.commands.list();
        return after.some((p) => p.pid === h.pid) ? `pid ${h.pid} still listed after kill` : true;
    });

    await step('commands.run background: wait collects the whole output', async () => {
        const h = await sbx.commands.run('echo start; sleep 0.3; echo done', { background: true });
        const r = await h.wait();
        return r.stdout === 'start\ndone\n' && r.exitCode === 0 ? true : show(r);
    });

    await step('a background command keeps running after disconnect, connect re-attaches', async () => {
        const h = await sbx.commands.run('sleep 0.5; echo late-output; sleep 0.2', { background: true, timeoutMs: 0 });
        await h.disconnect();
        const h2 = await sbx.commands.connect(h.pid);
        const r = await h2.wait();
        return r.exitCode === 0 ? true : show(r);
    });

    await step('commands.run background with stdin: sendStdin, closeStdin', async () => {
        const h = await sbx.commands.run('cat', { background: true, stdin: true });
        await sbx.commands.sendStdin(h.pid, 'piped\n');
        await sbx.commands.closeStdin(h.pid);
        const r = await h.wait();
        return r.stdout === 'piped\n' ? true : show(r);
    });

    await step('commands.run timeoutMs ends a foreground command with TimeoutError', async () => {
        const before = Date.now();
        const r = await expectThrow(() => sbx.commands.run('sleep 30; echo late', { timeoutMs: 1500 }), TimeoutError);
        if (r !== true) return r;
        return Date.now() - before < 20000 ? true : `took ${Date.now() - before} ms`;
    });

    await step('timeoutMs is the process lifetime: the sandbox kills it (Connect-Timeout-Ms)', async () => {
        const h = await sbx.commands.run('sleep 30', { background: true, timeoutMs: 1500 });
        const listed = await sbx.commands.list();
        if (!listed.some((p) => p.pid === h.pid)) return `pid ${h.pid} not listed while running`;
        await h.disconnect();
        for (let i = 0; i < 100; i++) {
            await new Promise((res) => setTimeout(res, 100));
            const now = await sbx.commands.list();
            if (!now.some((p) => p.pid === h.pid)) return true;
        }
        return `pid ${h.pid} still listed 10 s after its 1.5 s lifetime`;
    });

    // --- files ---
    const dir = `/home/user/sdk-${run}`;
    await step('files.write creates parents and returns the entry', async () => {
        const w = await sbx.files.write(`${dir}/sub/a.txt`, 'hello file\n');
        return w.path === `${dir}/sub/a.txt` && w.name === 'a.txt' ? true : show(w);
    });
    await step('files.read returns the text', async () => {
        const t = await sbx.files.read(`${dir}/sub/a.txt`);
        return t === 'hello file\n' ? true : show(t);
    });
    await step('files.write/read binary bytes round trip (all 256 values)', async () => {
        const bytes = new Uint8Array(4096);
        for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
        await sbx.files.write(`${dir}/bin.dat`, bytes.buffer);
        const back = await sbx.files.read(`${dir}/bin.dat`, { format: 'bytes' });
        if (back.length !== bytes.length) return `length ${back.length}`;
        for (let i = 0; i < bytes.length; i++) if (back[i] !== bytes[i]) return `byte ${i} differs`;
        return true;
    });
    await step('files.write gzip (octet-stream) round trip', async () => {
        const text = 'gz '.repeat(5000);
        await sbx.files.write(`${dir}/gz.txt`, text, { gzip: true });
        const back = await sbx.files.read(`${dir}/gz.txt`);
        return back === text ? true : `read ${back.length} chars, want ${text.length}`;
    });
    await step('files.write of several files in one call (multipart)', async () => {
        const ws = await sbx.files.write([
            { path: `${dir}/multi/one.txt`, data: 'one' },
            { path: `${dir}/multi/two.txt`, data: 'two' },
        ]);
        const paths = ws.map((w) => w.path).sort();
        if (show(paths) !== show([`${dir}/multi/one.txt`, `${dir}/multi/two.txt`])) return show(ws);
        const two = await sbx.files.read(`${dir}/multi/two.txt`);
        return two === 'two' ? true : show(two);
    });
    await step('files.list names entries with their types', async () => {
        const entries = await sbx.files.list(dir);
        const byName = Object.fromEntries(entries.map((e) => [e.name, e.type]));
        if (byName.sub !== 'dir') return `sub is ${byName.sub} in ${show(entries)}`;
        if (byName['bin.dat'] !== 'file') return `bin.dat is ${byName['bin.dat']}`;
        const bin = entries.find((e) => e.name === 'bin.dat');
        return bin.size === 4096 && bin.path === `${dir}/bin.dat` ? true : show(bin);
    });
    await step('files.exists is true for a file, false for a missing path', async () => {
        const a = await sbx.files.exists(`${dir}/sub/a.txt`);
        const b = await sbx.files.exists(`${dir}/nope`);
        return a === true && b === false ? true : `exists ${a}, ${b}`;
    });
    await step('files.remove deletes, then exists is false and read throws', async () => {
        await sbx.files.remove(`${dir}/sub`);
        if (await sbx.files.exists(`${dir}/sub/a.txt`)) return 'still exists';
        return expectThrow(() => sbx.files.read(`${dir}/sub/a.txt`), FileNotFoundError);
    });
    await step('files written over the API are visible to commands', async () => {
        await sbx.files.write(`${dir}/visible.txt`, 'seen by bash');
        const r = await sbx.commands.run(`cat ${dir}/visible.txt`);
        return r.stdout === 'seen by bash' ? true : show(r.stdout);
    });

    // --- lifetime and metrics ---
    await step('setTimeout moves endAt to about now + 60 s', async () => {
        await sbx.setTimeout(60000);
        const info = await sbx.getInfo();
        const left = (info.endAt - Date.now()) / 1000;
        return left > 40 && left < 75 ? true : `endAt is ${left}s from now`;
    });
    await step('getMetrics returns samples with CPU and memory figures', async () => {
        await sbx.commands.run('true');
        let m = [];
        for (let i = 0; i < 50 && m.length === 0; i++) {
            m = await sbx.getMetrics();
            if (m.length === 0) await new Promise((r) => setTimeout(r, 200));
        }
        if (!Array.isArray(m) || m.length === 0) return `no metrics: ${show(m)}`;
        const s = m[m.length - 1];
        if (!(s.cpuCount >= 1)) return `cpuCount ${s.cpuCount}`;
        if (!(s.memTotal > 0) || !(s.memUsed >= 0)) return `mem ${s.memUsed}/${s.memTotal}`;
        if (!(s.timestamp instanceof Date) || isNaN(s.timestamp)) return `timestamp ${s.timestamp}`;
        return typeof s.cpuUsedPct === 'number' ? true : `cpuUsedPct ${s.cpuUsedPct}`;
    });

    // --- list ---
    const others = [];
    await step('Sandbox.list paginates (limit 2) over exactly the matching sandboxes', async () => {
        for (let i = 0; i < 3; i++) {
            others.push(await Sandbox.create('base', { metadata: { suite: 'sdk', run, n: String(i) } }));
        }
        const { items, pages } = await drain(Sandbox.list({ query: { metadata: { run } }, limit: 2 }));
        const ids = items.map((s) => s.sandboxId);
        const want = [sbx, ...others].map((s) => s.sandboxId).sort();
        if (show(pages) !== show([2, 2])) return `page sizes ${show(pages)}, want [2,2]`;
        if (new Set(ids).size !== ids.length) return `duplicates in ${show(ids)}`;
        return show([...ids].sort()) === show(want) ? true : `got ${show(ids)}, want ${show(want)}`;
    });
    await step('Sandbox.list metadata filter with = & + and spaces in the value', async () => {
        const odd = 'a=b&c+d e%f';
        const s = await Sandbox.create('base', { metadata: { run, 'odd key': odd } });
        others.push(s);
        const { items } = await drain(Sandbox.list({ query: { metadata: { 'odd key': odd } } }));
        if (items.length !== 1 || items[0].sandboxId !== s.sandboxId) return `got ${show(items.map((i) => i.sandboxId))}`;
        if (items[0].metadata['odd key'] !== odd) return `metadata ${show(items[0].metadata)}`;
        const none = await drain(Sandbox.list({ query: { metadata: { 'odd key': 'a=b&c+d' } } }));
        return none.items.length === 0 ? true : `prefix value matched ${none.items.length}`;
    });

    // --- pause / connect / kill ---
    await step('pause returns true and the sandbox is listed as paused', async () => {
        await sbx.files.write('/home/user/keep.txt', 'kept across pause');
        const r = await sbx.pause();
        if (r !== true) return `pause returned ${r}`;
        const info = await Sandbox.getInfo(sbx.sandboxId);
        if (info.state !== 'paused') return `state ${info.state}`;
        const { items } = await drain(Sandbox.list({ query: { metadata: { run }, state: ['paused'] } }));
        return items.length === 1 && items[0].sandboxId === sbx.sandboxId ? true : show(items.map((i) => i.sandboxId));
    });
    await step('isRunning is false while paused (envd answers 502)', async () =>
        (await sbx.isRunning()) === false ? true : 'isRunning returned true for a paused sandbox');
    await step('pause of a paused sandbox returns false (409)', async () => {
        const r = await Sandbox.pause(sbx.sandboxId);
        return r === false ? true : `returned ${r}`;
    });
    await step('betaPause (deprecated name) exists and behaves as pause', async () => {
        const r = await Sandbox.betaPause(sbx.sandboxId);
        return r === false ? true : `returned ${r}`;
    });
    await step('running list excludes the paused sandbox', async () => {
        const { items } = await drain(Sandbox.list({ query: { metadata: { run }, state: ['running'] } }));
        const ids = items.map((i) => i.sandboxId);
        return !ids.includes(sbx.sandboxId) && ids.length === others.length ? true : show(ids);
    });
    let resumed;
    await step('Sandbox.connect resumes a paused sandbox with its files', async () => {
        resumed = await Sandbox.connect(sbx.sandboxId);
        const info = await resumed.getInfo();
        if (info.state !== 'running') return `state ${info.state}`;
        const t = await resumed.files.read('/home/user/keep.txt');
        return t === 'kept across pause' ? true : show(t);
    });
    await step('commands run after connect', async () => {
        const r = await resumed.commands.run('echo after-resume');
        return r.stdout === 'after-resume\n' ? true : show(r.stdout);
    });
    await step('kill returns true; getInfo then throws SandboxNotFoundError', async () => {
        await resumed.kill();
        const r = await expectThrow(() => Sandbox.getInfo(sbx.sandboxId), SandboxNotFoundError);
        if (r !== true) return r;
        const again = await Sandbox.kill(sbx.sandboxId);
        return again === false ? true : `second kill returned ${again}`;
    });
    await step('connect to a killed sandbox throws a not-found error', async () => {
        try {
            await Sandbox.connect(sbx.sandboxId);
        } catch (err) {
            return err instanceof SandboxNotFoundError || err instanceof NotFoundError ? true : `${err.name}: ${err.message}`;
        }
        return 'connect succeeded';
    });
    await step('a wrong API key gives AuthenticationError', async () =>
        expectThrow(() => Sandbox.list({ apiKey: 'e2b_wrong' }).nextItems(), AuthenticationError));

    for (const s of others) await Sandbox.kill(s.sandboxId).catch(() => undefined);

    // --- secrets ---
    const name = `sdk-secret-${run}`;
    let created;
    await step('Secret.create returns version 1 with metadata and no value', async () => {
        created = await Secret.create(name, 'sk-super-secret-value', { metadata: { owner: 'sdk' } });
        if (created.name !== name) return `name ${created.name}`;
        if (created.version !== 1) return `version ${created.version}`;
        if (created.metadata.owner !== 'sdk') return `metadata ${show(created.metadata)}`;
        if (!created.secretId) return 'no secretId';
        if (show(created).includes('sk-super-secret-value')) return 'the value came back';
        return created.createdAt instanceof Date && !isNaN(created.createdAt) ? true : `createdAt ${created.createdAt}`;
    });
    if (!created) return;
    await step('Secret.list (paginator) includes it', async () => {
        const { items } = await drain(Secret.list({ limit: 100 }));
        const mine = items.filter((s) => s.name === name);
        if (mine.length !== 1) return `found ${mine.length} in ${show(items.map((s) => s.name))}`;
        return show(items).includes('sk-super-secret-value') ? 'the value came back' : true;
    });
    await step('Secret.getInfo by name and by id', async () => {
        const a = await Secret.getInfo(name);
        const b = await Secret.getInfo(created.secretId);
        return a.secretId === created.secretId && b.name === name ? true : `${show(a)} ${show(b)}`;
    });
    await step('Secret.update bumps the version and replaces metadata', async () => {
        const u = await Secret.update(name, 'sk-new-value', { metadata: { owner: 'tui' } });
        if (u.version !== 2) return `version ${u.version}`;
        if (show(u.metadata) !== show({ owner: 'tui' })) return `metadata ${show(u.metadata)}`;
        const g = await Secret.getInfo(created.secretId);
        return g.version === 2 ? true : `getInfo version ${g.version}`;
    });
    await step('Secret.create of a duplicate name fails', async () =>
        expectThrow(() => Secret.create(name, 'x')));
    await step('Secret.exists, destroy, then gone', async () => {
        if ((await Secret.exists(name)) !== true) return 'exists false before destroy';
        if ((await Secret.destroy(name)) !== true) return 'destroy did not return true';
        if ((await Secret.exists(name)) !== false) return 'exists true after destroy';
        if ((await Secret.destroy(name)) !== false) return 'second destroy did not return false';
        return expectThrow(() => Secret.getInfo(name), SecretNotFoundError);
    });
}

const watchdog = setTimeout(() => {
    fail('script finished in 100 s', 'watchdog fired');
    process.exit(1);
}, 100000);

main().then(() => {
    clearTimeout(watchdog);
    process.exit(failed() ? 1 : 0);
}, (err) => {
    fail('script', `${err && err.stack}`);
    process.exit(1);
});
