import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withTx } from '../../src/db/pool.ts';
import { recordUsage } from '../../src/billing/ledger.ts';
import { spendVerdicts } from '../../src/billing/limits.ts';
import { findCredentialByHash, hashSecret } from '../../src/credentials.ts';

// usage.threshold against the one limit rule (src/billing/limits.ts): "100%"
// should be told exactly when the key's spending reaches its limit (when
// everything metered starts answering 402), and "80%" exactly when the
// spending reaches 80% of it, with limits and spending compared as exactly as
// the limits themselves compare them (whole microseconds).

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Key = { orgId: string; keyId: string; secret: string };

const spend = (k: Key, seconds: number) =>
  withTx(t.pool, (tx) => recordUsage(tx, { orgId: k.orgId, credentialId: k.keyId, livemode: false, kind: 'say', seconds }));

async function thresholds(k: Key): Promise<number[]> {
  const res = await t.request('GET', '/v1/events?type=usage.threshold', { key: k.secret });
  expect(res.status).toBe(200);
  return (await res.json()).data.map((e: any) => e.data.object.threshold_percent).sort();
}

/** Whether a read (cost 0) is refused now: the limit is reached. */
async function atLimit(k: Key): Promise<boolean> {
  const cred = (await findCredentialByHash(t.pool, hashSecret(k.secret)))!;
  const [v] = await spendVerdicts(t.pool, [{ cred, seconds: 0 }]);
  return v !== null;
}

describe('usage.threshold in step with the limit', () => {
  it('100% is sent when the spending lands exactly on a limit of inexact minutes, the moment reads start answering 402', async () => {
    for (const minutes of [0.015, 40 / 60, 0.07, 0.11, 23]) {
      const k = await t.key({ spendDay: minutes });
      const seconds = Math.round(minutes * 60 * 1e6) / 1e6;
      await spend(k, seconds / 2);
      expect(await atLimit(k), `${minutes} min, half spent`).toBe(false);
      await spend(k, seconds / 2);
      expect(await atLimit(k), `${minutes} min, all spent`).toBe(true);
      expect(await thresholds(k), `${minutes} min`).toEqual([100, 80]);
    }
  });

  // Thresholds compare whole microseconds: in floating point, 80% of a
  // 23-minute limit (1104 s = 18.4 min) gives 18.4 * 100 = 1839.9999999999998
  // < 23 * 80, and 72 whole-minute limits up to 1000 would miss their 80%.
  it('80% is sent when the spending reaches exactly 80% of a 23-minute limit', async () => {
    const k = await t.key({ spendDay: 23 });
    await spend(k, 1104);
    expect(await thresholds(k)).toEqual([80]);
  });

  // The spending is compared unrounded: rounded to three decimals of a minute,
  // 59.97 s of a 1-minute limit would count as 1.000 min and "100%" be sent
  // while the key can still spend 0.03 s and its reads still answer 200.
  it('100% is not sent while the limit is not reached (59.97 s of 60 s)', async () => {
    const k = await t.key({ spendDay: 1 });
    await spend(k, 59.97);
    expect(await atLimit(k)).toBe(false);
    expect(await thresholds(k)).toEqual([80]);
  });
});
