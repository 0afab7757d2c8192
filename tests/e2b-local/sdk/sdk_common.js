// What the SDK scripts (sdk_conformance.js, sdk_snapshots.js) share: the published SDK the
// shell test found (E2B_SDK_DIR, see e2b_sdk_install in tests/lib/e2b_sdk.sh), the PASS and
// FAIL lines, the step runner and the paginator drain.
'use strict';

const path = require('path');
const e2b = require(path.resolve(process.env.E2B_SDK_DIR, 'node_modules', 'e2b'));

// reporter(PREFIX): pass(name), fail(name, why), check(name, cond, why) and step(name, fn)
// print "PASS PREFIX: name" or "FAIL PREFIX: name: why" (why on one line, at most 300
// characters); failed() counts the failures so far.
function reporter(prefix) {
    let failed = 0;
    const pass = (name) => console.log(`PASS ${prefix}: ${name}`);
    const fail = (name, why) => {
        failed++;
        console.log(`FAIL ${prefix}: ${name}: ${String(why).replace(/\s+/g, ' ').slice(0, 300)}`);
    };
    const check = (name, cond, why) => (cond ? pass(name) : fail(name, why));
    // step NAME FN: runs one async check; it passes when FN returns undefined or true, a
    // string is its failure, and so is an exception.
    async function step(name, fn) {
        try {
            const r = await fn();
            if (r === undefined || r === true) pass(name);
            else fail(name, r);
        } catch (err) {
            fail(name, `${err && err.name}: ${err && err.message}`);
        }
    }
    return { pass, fail, check, step, failed: () => failed };
}

const show = (v) => JSON.stringify(v);

// Drains a paginator and returns every item plus the page sizes (100 pages at most).
async function drain(paginator) {
    const items = [];
    const pages = [];
    let guard = 0;
    while (paginator.hasNext && guard++ < 100) {
        const page = await paginator.nextItems();
        pages.push(page.length);
        items.push(...page);
    }
    return { items, pages };
}

module.exports = { e2b, reporter, show, drain };
