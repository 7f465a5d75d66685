import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A test file reaches the run's PostgreSQL through vitest's inject('adminUrl')
// (test/helpers/global-setup.ts): on a machine without one at the default
// address that is the embedded cluster the run started. The default address
// itself (LOCAL_ADMIN_URL) is only global setup's first guess: a test file
// that used it passed here and failed on a fresh machine (ECONNREFUSED).

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'helpers') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) testFiles(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

describe('the run\'s PostgreSQL', () => {
  it('is what every test file reaches, never the default address', () => {
    const files = ['test', 'gateway', 'machines', 'policies', 'src'].flatMap((d) => testFiles(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((f) => !f.endsWith('admin-url.test.ts') && /LOCAL_ADMIN_URL|127\.0\.0\.1:5432/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
