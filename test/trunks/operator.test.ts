import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { ROOT, startServerProcess } from '../helpers/process.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { decryptSecret } from '../../src/trunks/secret.ts';

// The trunks as the operator manages them (operator.md, SIP trunks and live
// mode): `tolk trunk add | list | remove` and `tolk number add --trunk` as
// separate processes, the password encrypted at rest under TOLK_SECRET_KEY
// and printed nowhere, and the server's start refused, in one sentence, when
// the key is missing or is not the one the passwords were stored with.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const KEY = randomBytes(32).toString('hex');
const PASSWORD = 's3cret-trunk-password';

let db: TestDb;
let pool: Pool;

type Run = { code: number | null; stdout: string; stderr: string; json: any };

function tolk(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('node', ['bin/tolk.js', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'silent', TOLK_SECRET_KEY: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: JSON.parse(stdout) }));
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe('tolk trunk', () => {
  let org = '';
  let other = '';
  let trunk = '';

  it('add: the password needs TOLK_SECRET_KEY; stored encrypted, printed nowhere', async () => {
    org = (await tolk(['org', 'create', '--name', 'Carrier customer'])).json.id;
    other = (await tolk(['org', 'create', '--name', 'Someone else'])).json.id;
    const args = ['trunk', 'add', '--org', org, '--uri', 'sip:sip.carrier.example;transport=tcp', '--username', 'acct', '--password', PASSWORD,
      '--realm', 'carrier.example', '--caller-id', 'pai', '--privacy', '--max-cps', '5'];
    const noKey = await tolk(args);
    expect(noKey.code).not.toBe(0);
    expect(noKey.json.error).toMatch(/TOLK_SECRET_KEY is not set/);
    expect(noKey.stdout + noKey.stderr).not.toContain(PASSWORD);

    const added = await tolk(args, { TOLK_SECRET_KEY: KEY });
    expect(added.code, added.stderr).toBe(0);
    expect(added.json).toEqual({ id: expect.stringMatching(/^trk_/) });
    trunk = added.json.id;
    expect(added.stdout + added.stderr).not.toContain(PASSWORD);
    const { rows } = await pool.query(`SELECT * FROM trunks WHERE id = $1`, [trunk]);
    expect(JSON.stringify(rows[0])).not.toContain(PASSWORD);
    expect(rows[0].password_enc).toMatch(/^v1\./);
    expect(decryptSecret(Buffer.from(KEY, 'hex'), rows[0].password_enc, trunk)).toBe(PASSWORD);
    // Bound to its trunk: the same ciphertext on another trunk's row does not decrypt.
    expect(() => decryptSecret(Buffer.from(KEY, 'hex'), rows[0].password_enc, 'trk_other')).toThrow(/does not decrypt/);
  });

  it('add refuses what a carrier connection cannot be, naming the flag', async () => {
    const bad = async (extra: string[], message: RegExp) => {
      const r = await tolk(['trunk', 'add', '--org', org, ...extra], { TOLK_SECRET_KEY: KEY });
      expect(r.code, r.stdout).toBe(2);
      expect(r.json.error).toMatch(message);
    };
    await bad(['--uri', 'https://carrier.example'], /--uri must be sip:HOST/);
    await bad(['--uri', 'sip:carrier.example;transport=sctp'], /--uri/);
    await bad(['--uri', 'sip:carrier.example', '--password', 'x'], /--password needs --username/);
    await bad(['--uri', 'sip:carrier.example', '--privacy'], /--privacy needs --caller-id pai/);
    await bad(['--uri', 'sip:carrier.example', '--caller-id', 'rpid'], /--caller-id must be from or pai/);
    await bad(['--uri', 'sip:carrier.example', '--max-cps', '0'], /--max-cps/);
    await bad(['--uri', 'sip:carrier.example', '--number-format', 'national'], /--number-format/);
    const nobody = await tolk(['trunk', 'add', '--org', 'org_nobody', '--uri', 'sip:carrier.example']);
    expect(nobody.json.error).toMatch(/no such organization/);
  });

  it('list shows the trunks of one organization, their state, never a password', async () => {
    const r = await tolk(['trunk', 'list', '--org', org]);
    expect(r.code).toBe(0);
    expect(r.json.data).toEqual([expect.objectContaining({
      id: trunk, org_id: org, uri: 'sip:sip.carrier.example;transport=tcp', username: 'acct', has_password: true, realm: 'carrier.example',
      caller_id: 'pai', privacy: true, number_format: 'e164', max_cps: 5, state: 'unknown',
    })]);
    expect(r.stdout).not.toContain(PASSWORD);
    expect(r.stdout).not.toContain('password_enc');
    expect((await tolk(['trunk', 'list', '--org', other])).json.data).toEqual([]);
  });

  it('number add --trunk takes the organization\'s own trunk only', async () => {
    const stolen = await tolk(['number', 'add', '--org', other, '--e164', '+12125550111', '--trunk', trunk]);
    expect(stolen.code).toBe(2);
    expect(stolen.json.error).toMatch(new RegExp(`no trunk ${trunk} in organization ${other}`));
    const own = await tolk(['number', 'add', '--org', org, '--e164', '+12125550110', '--trunk', trunk]);
    expect(own.code).toBe(0);
    const { rows } = await pool.query(`SELECT trunk_id FROM phone_numbers WHERE id = $1`, [own.json.id]);
    expect(rows[0].trunk_id).toBe(trunk);
  });

  it('the server does not start without the key, or with another key, and says why in one sentence; with the key it starts', async () => {
    await expect(startServerProcess(db.url, { TOLK_SECRET_KEY: '' })).rejects.toThrow(/TOLK_SECRET_KEY is not set, and trunk trk_\w+ has a password encrypted with it/);
    await expect(startServerProcess(db.url, { TOLK_SECRET_KEY: randomBytes(32).toString('hex') })).rejects.toThrow(/TOLK_SECRET_KEY does not decrypt the password of trunk trk_\w+: it is not the key it was stored with/);
    await expect(startServerProcess(db.url, { TOLK_SECRET_KEY: 'short' })).rejects.toThrow(/TOLK_SECRET_KEY.*64 hex characters/);
    const server = await startServerProcess(db.url, { TOLK_SECRET_KEY: KEY, TOLK_SIP_LISTEN: '127.0.0.1:0' });
    expect(server.stderr()).not.toContain(PASSWORD);
    await server.kill();
  });

  it('remove: the trunk goes, its numbers stay without one', async () => {
    const r = await tolk(['trunk', 'remove', trunk]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ id: trunk, has_password: true });
    expect(r.stdout).not.toContain(PASSWORD);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM phone_numbers WHERE trunk_id IS NOT NULL`);
    expect(rows[0].n).toBe(0);
    expect((await tolk(['trunk', 'remove', trunk])).json.error).toMatch(/no such trunk/);
  });
});
