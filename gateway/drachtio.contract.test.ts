import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createDrachtioSignaling, drachtioAddress } from './drachtio.ts';
import { signalingContract } from './signaling.contract.ts';
import { createTestDatabase, startTestApp } from '../test/helpers/app.ts';
import { quietFor } from '../test/helpers/wait.ts';

// The SipSignaling contract against the drachtio-server adapter. It needs a
// running drachtio-server, which has no npm or Debian package (docker-compose.yml
// has one for operators): the suite runs when DRACHTIO_HOST names it (with
// DRACHTIO_PORT, default 9022, and DRACHTIO_SECRET, default cymru), and
// says here, as a skipped test, why it did not run otherwise.
const host = process.env.DRACHTIO_HOST;
if (host) {
  const drachtio = { host, port: Number(process.env.DRACHTIO_PORT ?? 9022), secret: process.env.DRACHTIO_SECRET ?? 'cymru' };
  signalingContract(`drachtio-server at ${host}:${drachtio.port}`, (o) => createDrachtioSignaling({ ...o, drachtio, mediaHost: '127.0.0.1' }));
} else {
  describe('SipSignaling contract: drachtio-server', () => {
    it.skip('not run: no drachtio-server here (set DRACHTIO_HOST to run the contract against one)', () => {});
  });
}

describe('drachtio adapter without its server', () => {
  it('fails to start with a message naming the address and the settings to check, and stops trying', async () => {
    // A port nothing listens on: bound, then released.
    const srv = net.createServer();
    await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', () => ok()));
    const port = (srv.address() as net.AddressInfo).port;
    await new Promise<void>((ok) => srv.close(() => ok()));
    const started = Date.now();
    let attempts = 0;
    const log = { info() {}, warn: () => { attempts++; }, error() {} };
    await expect(createDrachtioSignaling({
      listen: '127.0.0.1:0', ringTimeoutSeconds: 5, onEvent: () => {}, mediaHost: '127.0.0.1', log,
      drachtio: { host: '127.0.0.1', port, secret: 'cymru', connectTimeoutMs: 1500 },
    })).rejects.toThrow(new RegExp(`drachtio-server at 127\\.0\\.0\\.1:${port}.*DRACHTIO_HOST`));
    expect(Date.now() - started).toBeLessThan(5_000);
    // It tried again while it waited (each refusal is logged), and not once after giving up.
    expect(attempts).toBeGreaterThan(1);
    const after = attempts;
    // Twice the 1.5 s it spent trying, in which it tried more than once.
    await quietFor(3_000);
    expect(attempts).toBe(after);
  });

  it('a server process with DRACHTIO_HOST set and no drachtio-server there does not start its gateway, and says why', async () => {
    const db = await createTestDatabase();
    try {
      await expect(startTestApp({
        db, workers: true, config: { drachtio: { host: '127.0.0.1', port: 1, secret: 'cymru', connectTimeoutMs: 1000 } },
      })).rejects.toThrow(/drachtio-server at 127\.0\.0\.1:1.*DRACHTIO_HOST/);
    } finally {
      await db.drop();
    }
  });

  it('takes the SIP address drachtio-server reports (its first UDP one)', () => {
    expect(drachtioAddress('tcp/10.0.0.5:5060,udp/10.0.0.6:5062')).toBe('10.0.0.6:5062');
    expect(drachtioAddress('udp/[::1]:5080')).toBe('[::1]:5080');
  });
});
