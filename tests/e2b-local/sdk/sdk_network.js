// The published E2B JS SDK (e2b@2.51.0), unchanged, with its network options against
// e2b-local's egress proxy: allowOut/denyOut (allow wins), allowInternetAccess: false,
// rules whose headers carry Secret.fill placeholders, updateNetwork on a running sandbox,
// and the creates E2B refuses (a domain in denyOut, a domain in allowOut without
// ALL_TRAFFIC in denyOut). The shell test (sdk_network_test.sh) serves an echo server on
// the host's loopback at EGRESS_PORT and maps two names to it through E2B_LOCAL_EGRESS_HOSTS:
// allowed.test (127.0.0.1) and other.test (127.0.0.2). Inside a sandbox, curl goes
// through HTTP_PROXY like any client there.
'use strict';

const { e2b, reporter, show } = require('./sdk_common');
const { Sandbox, Secret, ALL_TRAFFIC } = e2b;

const { fail, step, failed } = reporter('sdk-network');
const port = process.env.EGRESS_PORT;
const value = require('fs').readFileSync(process.env.EGRESS_SECRET_FILE, 'utf8').trim();

// GET http://HOST:port/PATH from inside the sandbox: {code, body} (code "000": no answer).
async function reach(sbx, host, path = 'p') {
    const r = await sbx.commands.run(
        `curl -s -o /tmp/body -w '%{http_code}' -H 'Authorization: Bearer placeholder' http://${host}:${port}/${path}; echo; cat /tmp/body`,
        { timeoutMs: 30000 }).catch((e) => e.result || { stdout: '' });
    const [code, ...rest] = String(r.stdout || '').split('\n');
    return { code, body: rest.join('\n') };
}

async function main() {
    const name = `egress${process.pid}`;
    await Secret.create(name, value);

    let sbx;
    await step('create with allowOut [allowed.test], denyOut [ALL_TRAFFIC] and a secret rule', async () => {
        sbx = await Sandbox.create('base', {
            timeoutMs: 120000,
            network: {
                allowOut: ['allowed.test'],
                denyOut: [ALL_TRAFFIC],
                rules: { 'allowed.test': [{ transform: { headers: { Authorization: `Bearer ${Secret.fill(name)}` } } }] },
            },
        });
        return sbx.sandboxId ? true : 'no sandbox';
    });
    if (!sbx) return;

    await step('getInfo returns the network config with the placeholder, not the value', async () => {
        const info = await Sandbox.getInfo(sbx.sandboxId);
        const text = show(info.network || {});
        if (text.includes(value)) return 'the secret value is in getInfo';
        return text.includes('allowed.test') && text.includes(`\${e2b.secrets.${name}}`) ? true : text;
    });

    await step('the allowed host answers, and its request carries the secret (rule header)', async () => {
        const r = await reach(sbx, 'allowed.test');
        if (r.code !== '200') return `HTTP ${r.code}: ${r.body}`;
        const seen = JSON.parse(r.body).headers.Authorization;
        return seen === `Bearer ${value}` ? true : `Authorization was ${show(seen)}`;
    });

    await step('a host not in allowOut is refused by the proxy (403, denyOut 0.0.0.0/0)', async () => {
        const r = await reach(sbx, 'other.test');
        return r.code === '403' && r.body.includes('denyOut 0.0.0.0/0') ? true : `HTTP ${r.code}: ${r.body}`;
    });

    await step('the secret is in no environment of the sandbox', async () => {
        const all = await sbx.commands.run('cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n"', { user: 'root' });
        return !all.stdout.includes(value) ? true : 'found the value';
    });

    await step('updateNetwork allows other.test and clears the rule (the whole config is replaced)', async () => {
        await sbx.updateNetwork({ allowOut: ['other.test'], denyOut: [ALL_TRAFFIC] });
        const r1 = await reach(sbx, 'other.test');
        const r2 = await reach(sbx, 'allowed.test');
        if (r1.code !== '200') return `other.test: HTTP ${r1.code}: ${r1.body}`;
        if (r2.code !== '403') return `allowed.test: HTTP ${r2.code}, want 403`;
        if (JSON.parse(r1.body).headers.Authorization !== 'Bearer placeholder') return 'a rule still applied';
        return true;
    });

    await step('updateNetwork with allowInternetAccess: false refuses everything (internet access off)', async () => {
        await sbx.updateNetwork({ allowInternetAccess: false });
        const r = await reach(sbx, 'other.test');
        const info = await Sandbox.getInfo(sbx.sandboxId);
        if (info.allowInternetAccess !== false) return `allowInternetAccess ${info.allowInternetAccess}`;
        return r.code === '403' && r.body.includes('internet access off') ? true : `HTTP ${r.code}: ${r.body}`;
    });
    await sbx.kill();

    let open;
    await step('create with allowInternetAccess: false and allowOut [127.0.0.2/32]: allow wins for that address only', async () => {
        open = await Sandbox.create('base', { timeoutMs: 120000, allowInternetAccess: false, network: { allowOut: ['127.0.0.2/32'] } });
        const a = await reach(open, 'other.test');
        const b = await reach(open, 'allowed.test');
        if (a.code !== '200') return `other.test (127.0.0.2): HTTP ${a.code}: ${a.body}`;
        return b.code === '403' && b.body.includes('internet access off') ? true : `allowed.test: HTTP ${b.code}: ${b.body}`;
    });
    if (open) await open.kill();

    // What E2B refuses, the SDK's create throws for (a 400 with the reason).
    const refused = async (opts, want) => {
        let made;
        try {
            made = await Sandbox.create('base', { timeoutMs: 120000, ...opts });
        } catch (e) {
            return String(e && e.message).includes(want) ? true : `${e && e.name}: ${e && e.message}`;
        }
        await made.kill().catch(() => {});
        return 'the create was accepted';
    };
    await step('create with a domain in denyOut is refused (E2B denies by address only)', () =>
        refused({ network: { denyOut: ['other.test'] } }, 'invalid denied CIDR other.test'));
    await step('create with a domain in allowOut and no ALL_TRAFFIC in denyOut is refused', () =>
        refused({ allowInternetAccess: false, network: { allowOut: ['allowed.test'] } }, '0.0.0.0/0'));

    let free;
    await step('a sandbox without network options reaches both hosts', async () => {
        free = await Sandbox.create('base', { timeoutMs: 120000 });
        const a = await reach(free, 'other.test');
        const b = await reach(free, 'allowed.test');
        return a.code === '200' && b.code === '200' ? true : `HTTP ${a.code}, ${b.code}`;
    });
    if (free) await free.kill();
    await Secret.destroy(name).catch(() => {});
}

main().then(() => process.exit(failed() ? 1 : 0), (err) => {
    fail('the script', `${err && err.name}: ${err && err.message}`);
    process.exit(1);
});
