import pino from 'pino';
import type { Config } from './config.ts';
import { LOG_REDACTION } from './http/redact.ts';
import { startMedia, type MediaServers } from './media/servers.ts';
import { startTranslation, type Translation } from './engines/translate/index.ts';
import { startRecognizers } from './engines/speech/index.ts';
import { setEngineLog } from './engines/supervisor.ts';
import type { RecognizerChain } from './engines/speech/recognizers.ts';
import { resolveDatabase } from './db/connect.ts';
import { migrate } from './db/migrate.ts';
import { createPool, quietOutages, type Pool } from './db/pool.ts';
import { startBoss, startWorkers, type Boss } from './jobs-registry.ts';
import { StartupError, databaseFailure, logDestination } from './startup.ts';
import type { CallGateway, Services } from './services.ts';
import { REACTIONS } from './reactions.ts';
import { startGateway } from '../gateway/gateway.ts';
import { bindGateway } from './calls/dialer.ts';
import { bindDialIn } from './rooms/phone/dial-in.ts';
import { startHeartbeat } from './calls/heartbeat.ts';
import { startSweep } from './calls/sweep.ts';
import { listenForNotices } from './calls/notices.ts';
import { SessionBus } from './sessions/bus.ts';
import { checkSecretKey } from './trunks/trunks.ts';
import { startTrunkHealth, TrunkSources } from './trunks/ping.ts';
import { SecretKeyError } from './trunks/secret.ts';

async function checkSecretKeyAt(url: string, key: Buffer | undefined): Promise<void> {
  const pool = createPool(url, 1);
  try {
    await checkSecretKey(pool, key);
  } finally {
    await pool.end().catch(() => {});
  }
}

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

/**
 * This process's SIP gateway (gateway/gateway.ts), started and bound to the
 * calls (calls/dialer.ts), with its heartbeat, its sweep of lost gateways and
 * its notices from the rest of the service; its stop unbinds (the calls whose
 * dialog is here end failed/gateway_lost) and then stops the gateway.
 */
export async function startCallGateway(s: Services, databaseUrl: string, log: Log): Promise<CallGateway> {
  // The trunks' addresses: an INVITE from one goes to the dial-in (rooms/phone/), from anyone else 403 (trunks/ping.ts).
  const sources = new TrunkSources();
  const gw = await startGateway(s.config, { recognizer: s.recognizer, log, fromTrunk: (src) => sources.has(src.address) });
  let dialer: Awaited<ReturnType<typeof bindGateway>>;
  let notices: { close(): Promise<void> };
  // The lines wait for a phrase's translation as every reader of a log does: on its notifications.
  const bus = s.logBus ? null : new SessionBus(databaseUrl);
  try {
    if (bus) {
      await bus.start();
      s.logBus = bus;
    }
    dialer = await bindGateway(s, gw, log);
  } catch (err) {
    await bus?.close();
    await gw.stop();
    throw err;
  }
  const heartbeat = startHeartbeat(s, dialer, log);
  const sweep = startSweep(s, dialer, heartbeat, log);
  try {
    notices = await listenForNotices(s, databaseUrl, dialer, log);
  } catch (err) {
    await heartbeat.stop();
    await sweep.stop();
    await dialer.stop();
    await bus?.close();
    await gw.stop();
    throw err;
  }
  const health = startTrunkHealth(s.pool, gw.signaling, sources, s.config.trunkPingSeconds, log);
  // Calls to the inbound numbers join rooms (rooms/phone/).
  const dialIn = bindDialIn(s, gw, log);
  s.phoneRooms = dialIn;
  return {
    id: dialer.id,
    address: dialer.address,
    active: dialer.active,
    dial: dialer.dial,
    dialPlaced: dialer.dialPlaced,
    media: dialer.media,
    stop: async () => {
      await dialIn.stop();
      s.phoneRooms = undefined;
      await health.stop();
      await heartbeat.stop();
      await sweep.stop();
      await notices.close();
      await dialer.stop();
      await bus?.close();
      await gw.stop();
    },
  };
}

export type Platform = {
  config: Config;
  databaseUrl: string;
  /** Which database this is, in one line (the start banner prints it). */
  database: string;
  pool: Pool;
  boss: Boss;
  log: pino.Logger;
  /** This process's call gateway (with workers). */
  gateway: CallGateway | undefined;
  /** The translation engines (TOLK_TRANSLATE). */
  translation: Translation;
  /** The speech recognizers (TOLK_RECOGNIZE). */
  recognizer: RecognizerChain;
  /** The media server of rooms' voices (TOLK_MEDIA_SERVER). */
  media: MediaServers;
  close: () => Promise<void>;
};

/**
 * Database (embedded when DATABASE_URL is unset), migrations, pool, job queue
 * and workers. A failure here is a StartupError: one sentence for the operator.
 */
export async function startPlatform(config: Config, opts: { migrate?: boolean } = {}): Promise<Platform> {
  const log = pino({ level: config.logLevel, ...LOG_REDACTION }, logDestination(2));
  // The engines' children (a decoder, a worker thread) that die and come back say so in this log.
  setEngineLog(log);
  // Janus, where the service runs it, starts beside the rest (it needs none of it): one that
  // does not start leaves rooms without voices, said in the log and on the pages. startMedia never rejects.
  const starting = startMedia(config, log);
  const stopMedia = async () => { await (await starting).close().catch(() => {}); };
  let db: Awaited<ReturnType<typeof resolveDatabase>>;
  try {
    db = await resolveDatabase(config, (m) => log.info(m));
  } catch (err) {
    await stopMedia();
    throw err;
  }
  const fail = async (err: unknown) => {
    await stopMedia();
    await db.stop().catch(() => {});
    return databaseFailure(err, db.url, Boolean(config.databaseUrl));
  };
  try {
    if (opts.migrate !== false) await migrate(db.url);
  } catch (err) {
    throw await fail(err);
  }
  // A trunk's password stored and no key (or another key) to read it: a clear start error (operator.md: TOLK_SECRET_KEY).
  try {
    await checkSecretKeyAt(db.url, config.secretKey);
  } catch (err) {
    await stopMedia();
    await db.stop().catch(() => {});
    throw err instanceof SecretKeyError ? new StartupError(err.message) : databaseFailure(err, db.url, Boolean(config.databaseUrl));
  }
  let translation: Translation;
  let recognizer: RecognizerChain;
  try {
    translation = await startTranslation(config, log);
  } catch (err) {
    await stopMedia();
    await db.stop().catch(() => {});
    throw new StartupError(`translation: ${(err as Error).message}`);
  }
  try {
    recognizer = startRecognizers(config, log);
  } catch (err) {
    await translation.close().catch(() => {});
    await stopMedia();
    await db.stop().catch(() => {});
    throw new StartupError(`speech recognition: ${(err as Error).message}`);
  }
  const media = await starting;
  const pool = createPool(db.url, config.dbPool);
  const quiet = quietOutages(log);
  let boss: Boss;
  try {
    boss = await startBoss(db.url, {
      workers: config.workers,
      monitorSeconds: config.jobMonitorSeconds,
      onError: (err) => quiet.error({ err }, 'pg-boss'),
    });
  } catch (err) {
    await pool.end().catch(() => {});
    await translation.close().catch(() => {});
    throw await fail(err);
  }
  let workers: Awaited<ReturnType<typeof startWorkers>> | null = null;
  const services: Services = { config, pool, boss, reactions: REACTIONS, translation, recognizer, media };
  const workerLog = { ...quiet, warn: (o: object, m: string) => log.warn(o, m), info: (o: object, m: string) => log.info(o, m) };
  try {
    // The gateway first: the call queues the workers take need it in the services.
    if (config.workers) services.gateway = await startCallGateway(services, db.url, workerLog);
    workers = config.workers ? await startWorkers(services, db.url, workerLog) : null;
  } catch (err) {
    await services.gateway?.stop().catch(() => {});
    await boss.stop({ graceful: false }).catch(() => {});
    await pool.end().catch(() => {});
    await translation.close().catch(() => {});
    await media.close().catch(() => {});
    await db.stop().catch(() => {});
    throw new StartupError(`the SIP gateway cannot start on ${config.sipListen} (TOLK_SIP_LISTEN): ${(err as Error).message}`);
  }
  return {
    config,
    databaseUrl: db.url,
    database: db.description,
    pool,
    boss,
    log,
    gateway: services.gateway,
    translation,
    recognizer,
    media,
    close: async () => {
      await media.close().catch(() => {});
      await services.gateway?.stop().catch(() => {});
      await workers?.stop().catch(() => {});
      await translation.close().catch(() => {});
      await recognizer.close().catch(() => {});
      await boss.stop({ graceful: true, timeout: 5000 }).catch(() => {});
      await pool.end().catch(() => {});
      await db.stop().catch(() => {});
    },
  };
}
