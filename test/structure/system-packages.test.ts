import { describe, expect, it } from 'vitest';
import { NEEDS, ensure, missing } from '../../scripts/system-packages.ts';

// npm test's first step (scripts/system-packages.ts): every Debian package the
// tests run is named with why; on a machine that has them nothing happens; one
// that lacks some and cannot install them gets, at once, what is missing and
// the one apt-get line to run; one that can, installs them.

const absent = { pkg: 'tolk-no-such-package', why: 'stands for a package this machine lacks' };

function run(needs: typeof NEEDS, m: Parameters<typeof ensure>[1], check = false) {
  const lines: string[] = [];
  const code = ensure(needs, m, { check, say: (l) => lines.push(l) });
  return { code, text: lines.join('\n') };
}

describe('the Debian packages npm test needs', () => {
  it('are each named with why, and are all installed here (npm test installed them or stopped)', () => {
    for (const n of NEEDS) expect(n.why.length, n.pkg).toBeGreaterThan(20);
    for (const pkg of ['chromium', 'sip-tester', 'baresip-core', 'kamailio', 'apertium-apy', 'pocketsphinx', 'espeak-ng']) {
      expect(NEEDS.map((n) => n.pkg)).toContain(pkg);
    }
    expect(missing(NEEDS)).toEqual([]);
    expect(run(NEEDS, { apt: true, root: false, sudo: false })).toEqual({ code: 0, text: '' });
  });

  it('a user who cannot install: stops at once with what is missing, why, and the one line to run', () => {
    const r = run([NEEDS[0]!, absent], { apt: true, root: false, sudo: false });
    expect(r.code).toBe(1);
    expect(r.text).toContain('tolk-no-such-package');
    expect(r.text).toContain('stands for a package this machine lacks');
    expect(r.text).not.toContain(`  ${NEEDS[0]!.pkg} `);
    const lines = r.text.split('\n').filter((l) => l.includes('apt-get install'));
    expect(lines).toEqual(['  sudo apt-get update && sudo apt-get install -y tolk-no-such-package']);
  });

  it('a machine without apt-get gets the same line, for a Debian or Ubuntu one', () => {
    const r = run([absent], { apt: false, root: true, sudo: false });
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/no apt-get/);
    expect(r.text).toContain('sudo apt-get install -y tolk-no-such-package');
  });

  it('root tries apt-get, and when the package cannot be had, says so with the line to run by hand', () => {
    const r = run([absent], { apt: true, root: true, sudo: false });
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/installing them now \(apt-get\)/);
    expect(r.text).toMatch(/failed \(exit \d+\); install them by hand/);
  }, 120_000);
});
