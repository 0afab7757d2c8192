// The published SDK (e2b@2.51.0), unchanged, against e2b-local's snapshots and forks:
// Sandbox.createSnapshot / sbx.createSnapshot, Sandbox.listSnapshots (paginator, sandboxId
// filter), Sandbox.deleteSnapshot, Sandbox.create(snapshotId), sbx.fork / Sandbox.fork.
// Same environment and output as sdk_conformance.js.
'use strict';

const { e2b, reporter, show, drain } = require('./sdk_common');
const { Sandbox, SandboxNotFoundError } = e2b;

const { fail, step, failed } = reporter('sdk-snap');

async function rejects(fn) {
    try {
        await fn();
    } catch (err) {
        return err;
    }
    return null;
}

async function main() {
    const run = `r${process.pid}`;
    const name = `snap-${run}`;
    let sbx, named, unnamed;
    const cleanup = [];

    await step('a sandbox with a file to snapshot', async () => {
        sbx = await Sandbox.create('base', { timeoutMs: 120000, metadata: { run } });
        cleanup.push(sbx);
        await sbx.files.write('/home/user/state.txt', 'prepared');
        return true;
    });
    if (!sbx) return;

    await step('sbx.createSnapshot({name}) returns the namespaced id and names', async () => {
        named = await sbx.createSnapshot({ name });
        if (!/\/snap-r\d+:default$/.test(named.snapshotId)) return `snapshotId ${named.snapshotId}`;
        return named.names.includes(named.snapshotId) ? true : `names ${show(named.names)}`;
    });

    await step('Sandbox.createSnapshot(id) without a name returns id:tag', async () => {
        unnamed = await Sandbox.createSnapshot(sbx.sandboxId);
        return /^[a-z0-9]+:default$/.test(unnamed.snapshotId) ? true : show(unnamed);
    });

    await step('Sandbox.create(snapshotId) starts with the snapshot\'s files', async () => {
        const s2 = await Sandbox.create(named.snapshotId, { timeoutMs: 60000 });
        cleanup.push(s2);
        const text = await s2.files.read('/home/user/state.txt');
        if (text !== 'prepared') return `read ${show(text)}`;
        const r = await s2.commands.run('echo alive');
        return r.stdout === 'alive\n' ? true : show(r.stdout);
    });

    await step('a snapshot is a copy: a later write in the source is not in it', async () => {
        await sbx.files.write('/home/user/state.txt', 'changed');
        const s3 = await Sandbox.create(unnamed.snapshotId, { timeoutMs: 60000 });
        cleanup.push(s3);
        const text = await s3.files.read('/home/user/state.txt');
        return text === 'prepared' ? true : `read ${show(text)}`;
    });

    await step('Sandbox.listSnapshots({sandboxId}) lists both', async () => {
        const { items } = await drain(Sandbox.listSnapshots({ sandboxId: sbx.sandboxId }));
        const ids = items.map((s) => s.snapshotId).sort();
        const want = [named.snapshotId, unnamed.snapshotId].sort();
        return show(ids) === show(want) ? true : `got ${show(ids)}, want ${show(want)}`;
    });

    await step('Sandbox.listSnapshots({limit: 1}) pages one at a time, no duplicates', async () => {
        const { items, pages } = await drain(Sandbox.listSnapshots({ sandboxId: sbx.sandboxId, limit: 1 }));
        const ids = new Set(items.map((s) => s.snapshotId));
        if (items.length !== 2 || ids.size !== 2) return `items ${show(items)}`;
        return pages.every((n) => n <= 1) ? true : `pages ${show(pages)}`;
    });

    await step('sbx.fork({count: 3}) returns three running sandboxes with the files', async () => {
        await sbx.files.write('/home/user/state.txt', 'at-fork');
        const forks = await sbx.fork({ count: 3, timeoutMs: 60000 });
        if (forks.length !== 3) return `length ${forks.length}`;
        const ids = new Set();
        for (const f of forks) {
            if (!(f instanceof Sandbox)) return `not a Sandbox: ${f && f.message}`;
            cleanup.push(f);
            ids.add(f.sandboxId);
            const text = await f.files.read('/home/user/state.txt');
            if (text !== 'at-fork') return `fork read ${show(text)}`;
        }
        if (ids.size !== 3 || ids.has(sbx.sandboxId)) return `ids ${show([...ids])}`;
        await forks[0].files.write('/home/user/state.txt', 'fork-only');
        const parent = await sbx.files.read('/home/user/state.txt');
        return parent === 'at-fork' ? true : `the parent sees the fork's write: ${show(parent)}`;
    });

    await step('Sandbox.deleteSnapshot is true, then false; create from it fails', async () => {
        if ((await Sandbox.deleteSnapshot(unnamed.snapshotId)) !== true) return 'first delete was not true';
        if ((await Sandbox.deleteSnapshot(unnamed.snapshotId)) !== false) return 'second delete was not false';
        const err = await rejects(() => Sandbox.create(unnamed.snapshotId, { timeoutMs: 10000 }));
        return err ? true : 'create from a deleted snapshot succeeded';
    });

    await step('Sandbox.deleteSnapshot of a namespaced id (team/name:tag) is true', async () => {
        const r = await Sandbox.deleteSnapshot(named.snapshotId);
        return r === true ? true : `returned ${r}`;
    });

    await step('createSnapshot and fork of a paused sandbox are refused', async () => {
        const p = await Sandbox.create('base', { timeoutMs: 60000 });
        cleanup.push(p);
        await p.pause();
        const e1 = await rejects(() => Sandbox.createSnapshot(p.sandboxId));
        const e2 = await rejects(() => Sandbox.fork(p.sandboxId, { count: 1 }));
        if (!e1 || !/paused/.test(e1.message)) return `snapshot: ${e1 && e1.message}`;
        return e2 && /paused/.test(e2.message) ? true : `fork: ${e2 && e2.message}`;
    });

    await step('Sandbox.fork of a killed sandbox throws SandboxNotFoundError', async () => {
        const k = await Sandbox.create('base', { timeoutMs: 60000 });
        await k.kill();
        const err = await rejects(() => Sandbox.fork(k.sandboxId, { count: 2 }));
        return err instanceof SandboxNotFoundError ? true : `${err && err.name}: ${err && err.message}`;
    });

    for (const s of cleanup) {
        try {
            await Sandbox.kill(s.sandboxId);
        } catch (err) {
            fail('cleanup', err.message);
        }
    }
}

main().then(() => process.exit(failed() ? 1 : 0), (err) => {
    console.log(`FAIL sdk-snap: unexpected: ${err && err.stack}`);
    process.exit(1);
});
