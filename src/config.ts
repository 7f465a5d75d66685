import fs from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseIceServers, parseMediaServer, type IceServer, type MediaServer } from './media/settings.ts';
import { z } from 'zod';
import type { EngineKindName, EngineSpec, SpeechKeys, TranslateKeys } from './engines/descriptor.ts';
import { engineOf, knownEntries } from './engines/registry.ts';
import { installedEngines, offlineFirst } from './engines/models/defaults.ts';
import { PUBLIC_LIMITS, type PublicLimits } from './public-limits.ts';

// The one place that reads process.env. Parsed once at boot; a bad value fails fast.
const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_BASE_URL: z.url().optional(),
  // Empty is unset (the embedded PostgreSQL).
  DATABASE_URL: z
    .string()
    .refine((v) => v === '' || /^postgres(ql)?:\/\/./.test(v), 'must be a PostgreSQL URL: postgres://user:password@host:5432/database')
    .optional(),
  SMTP_URL: z.string().optional(),
  TOLK_WEBHOOK_ALLOW_ORIGINS: z.string().default(''),
  TOLK_SIM_SPEED: z.coerce.number().positive().default(1),
  // Calls and the SIP gateway (operator.md).
  TOLK_SIP_LISTEN: z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, 'must be HOST:PORT, e.g. 127.0.0.1:5060')
    .default('127.0.0.1:5060'),
  TOLK_SIM_SIP_PEER: z
    .string()
    .regex(/^sips?:([^@\s]+@)?[^\s:@;]+(:\d{1,5})?$/, 'must be a SIP URI, sip:HOST:PORT')
    .optional(),
  TOLK_RING_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Additions of ours (operator.md allows adding, never renaming).
  TOLK_DATA_DIR: z.string().default('.data'),
  // The offline engines' models (operator.md, Models; engines/models/store.ts), and a copy of the catalog's files an operator serves (NAME/FILE under it).
  TOLK_MODELS_DIR: z.string().default(path.join('.data', 'models')),
  TOLK_MODELS_MIRROR: z.union([z.literal(''), z.string().url()]).optional(),
  TOLK_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  TOLK_BODY_LIMIT: z.coerce.number().int().positive().default(1024 * 1024),
  TOLK_MAX_SESSIONS: z.coerce.number().int().min(1).max(100000).default(10),
  // How soon jobs of a killed process (webhook attempts, timers) are taken over.
  TOLK_JOB_MONITOR_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  // A gateway whose heartbeat is older than this is lost: its calls end failed/gateway_lost.
  TOLK_GATEWAY_LOST_SECONDS: z.coerce.number().positive().max(3600).default(10),
  // An answered call whose far end sends no RTP or RTCP this long is hung up (operator.md).
  TOLK_MEDIA_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(30),
  // The From of every mail the service sends (mail/mail.ts mailFrom): an
  // address, optionally with a display name, `Tolk <no-reply@example.com>`.
  // Unset: `Tolk <no-reply@HOST>`, HOST being PUBLIC_BASE_URL's host name.
  TOLK_MAIL_FROM: z
    .string()
    .refine((v) => v === '' || /^([^<>\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/.test(v.trim()), 'must be an e-mail address, e.g. Tolk <no-reply@example.com>')
    .optional(),
  // The assistant tools at /mcp: `off` answers 503 mcp_disabled (an operator's switch, e.g. during an incident).
  TOLK_MCP: z.enum(['on', 'off']).default('on'),
  // Engine names are src/engines/registry.ts's: one it does not know stops the start, naming those it knows.
  // The speech engines (src/engines/speech), in order (operator.md, Engines): `pico` (embedded,
  // Apache-2.0), `espeak` (eSpeak NG, GPL-3.0, installed by the operator: Debian's espeak-ng
  // program, else the npm package), `openai=URL` (OpenAI-compatible /v1/audio/speech),
  // `elevenlabs[=URL]` (key ELEVENLABS_API_KEY). Unset: `pico,espeak` where Debian's espeak-ng
  // is installed (Pico keeps the five languages it speaks, eSpeak NG speaks the rest, Portuguese
  // among them), else `pico`. Set, it is what the operator says.
  TOLK_SPEECH_ENGINES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const list = (v ?? (espeakNgInstalled() ? 'pico,espeak' : 'pico')).split(',').map((x) => x.trim()).filter(Boolean).map((x) => (x.includes('=') ? x : x.toLowerCase()));
      if (list.length === 0) {
        ctx.addIssue({ code: 'custom', message: `name at least one engine: ${knownEntries('speak')}` });
        return z.NEVER;
      }
      // Checked, and kept as written (`openai=URL`): the synthesizers are made from these.
      engineList('speak', list, /^https?:\/\/\S+$/, ctx);
      return list;
    }),
  // Speech recognizers, in order: `openai=URL`, `deepgram[=URL]`, `vosk=URL`, `pocketsphinx` (embedded,
  // Debian's). Unset: pocketsphinx when it is installed, else none; empty: none.
  TOLK_RECOGNIZE: z
    .string()
    .optional()
    .transform((v, ctx) => engineList('recognize', (v ?? (pocketsphinxInstalled() ? 'pocketsphinx' : '')).split(',').map((x) => x.trim()).filter(Boolean), /^(?:https?|wss?):\/\/\S+$/, ctx)),
  // Rooms' live voices (operator.md, Media server): `janus` (run by the service; the default where
  // Debian's janus is installed), `janus=ws://HOST:8188[,ws://...]` (run by the operator), `off`.
  TOLK_MEDIA_SERVER: z.string().optional().transform((v, ctx) => parseMediaServer(v ?? (present(['/usr/bin/janus', fs.constants.X_OK]) ? 'janus' : 'off'), ctx)),
  TOLK_JANUS_API_SECRET: z.string().optional(),
  TOLK_JANUS_ADMIN_KEY: z.string().optional(), // ours (operating.md): an operator's Janus plugins' admin_key
  TOLK_ICE_SERVERS: z.string().optional().transform((v, ctx) => parseIceServers(v ?? '', ctx)),
  TOLK_MEDIA_PUBLIC_IP: z.union([z.ipv4(), z.ipv6()]).optional(),
  TOLK_RECOGNIZE_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  DEEPGRAM_API_KEY: z.string().optional(),
  ELEVENLABS_API_KEY: z.string().optional(),
  TOLK_OPENAI_STT_MODEL: z.string().default('whisper-1'),
  TOLK_OPENAI_TTS_MODEL: z.string().default('tts-1'),
  // The installed Whisper model `whisper` reads with, when several are (engines/whisper).
  TOLK_WHISPER_MODEL: z.string().optional(),
  // The languages the vosk-server of TOLK_RECOGNIZE hears (it runs one model; it cannot say which).
  TOLK_VOSK_LANGS: z.string().default('en').transform((v) => v.split(',').map((x) => x.trim()).filter(Boolean)),
  // The gateway's SIP signaling through a drachtio-server (gateway/drachtio.ts)
  // instead of the embedded stack: its address, its admin port, its secret.
  DRACHTIO_HOST: z.string().regex(/^[^\s:/]+$/, 'must be a host name or address').optional(),
  DRACHTIO_PORT: z.coerce.number().int().min(1).max(65535).default(9022),
  DRACHTIO_SECRET: z.string().default('cymru'),
  // The key that encrypts the trunks' passwords at rest (AES-256-GCM): 32 random bytes as 64 hex characters.
  TOLK_SECRET_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().regex(/^[0-9a-fA-F]{64}$/, 'must be 32 random bytes as 64 hex characters, e.g. the output of openssl rand -hex 32').optional()),
  // Seconds between the OPTIONS pings of each trunk; a trunk that misses two in a row is down.
  TOLK_TRUNK_PING_SECONDS: z.coerce.number().min(0.2).max(3600).default(30),
  // Reverse proxies (comma-separated addresses or CIDRs) whose X-Forwarded-For
  // names the client: the anonymous limits and key allow-lists then use that
  // address, for connections from these proxies only (README, Public pages).
  TOLK_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((x) => x.trim()).filter(Boolean))
    .refine((list) => list.every(isAddressOrCidr), 'must be addresses or CIDRs separated by commas, e.g. 10.0.0.0/8,::1'),
  // `off`: a public room's url alone no longer lets anyone in; people need a join link, as for a private room.
  TOLK_ANONYMOUS_JOIN: z.enum(['on', 'off']).default('on'),
  // Translation engines, in order (operator.md, Engines): NAME or NAME=URL. Unset: apertium when
  // apertium-apy is installed, else none; empty: none.
  TOLK_TRANSLATE: z
    .string()
    .optional()
    .transform((v, ctx) => engineList('translate', (v ?? (apyInstalled() ? 'apertium' : '')).split(',').map((x) => x.trim()).filter(Boolean), /^https?:\/\/\S+$/, ctx)),
  TOLK_TRANSLATE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  LIBRETRANSLATE_API_KEY: z.string().optional(),
  DEEPL_API_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
  TOLK_OPENAI_TRANSLATE_MODEL: z.string().default('gpt-4o-mini'),
  // The Bearer token of GET /metrics (operator.md, Health and metrics); unset or empty: /metrics is not served.
  TOLK_METRICS_TOKEN: z.string().optional(),
  // Seconds between /readyz turning 503 on a shutdown signal and the server closing (load balancers stop sending first).
  TOLK_DRAIN_SECONDS: z.coerce.number().min(0).max(300).default(2),
  // The most connections a process's pool opens to PostgreSQL (pg-boss keeps 4 more, the listener 1):
  // the processes sharing a database, times this, must fit in its max_connections.
  TOLK_DB_POOL: z.coerce.number().int().min(2).max(500).default(20),
});

/** An entry of TOLK_RECOGNIZE, TOLK_TRANSLATE: an engine of the registry, and its URL. */
export type RecognizeEngine = EngineSpec;
export type TranslateEngine = EngineSpec;

/** The entries (`NAME` or `NAME=URL`, the URL matching `scheme`) of an engine list, each checked against the
 * registry; z.NEVER, an issue added, at the first that is not one of its engines of this kind or lacks its URL. */
function engineList(kind: EngineKindName, list: string[], scheme: RegExp, ctx: z.RefinementCtx): EngineSpec[] {
  const out: EngineSpec[] = [];
  for (const item of list) {
    const [name, url] = item.split(/=(.*)/s) as [string, string | undefined];
    const d = engineOf(kind, name)?.[kind];
    const issue = !d ? `unknown engine '${name}': the known ones are ${knownEntries(kind)}`
      : url !== undefined && d.url === 'none' ? `${name} takes no URL: name it alone`
        : url !== undefined && !scheme.test(url) ? `'${item}' is not ${name}=URL with a URL such as https://...`
          : url === undefined && d.url === 'required' ? `${name} needs its address: ${name}=${name === 'vosk' ? 'ws' : 'https'}://...`
            : null;
    if (issue) {
      ctx.addIssue({ code: 'custom', message: issue });
      return z.NEVER;
    }
    out.push({ name, ...(url ? { url } : {}) });
  }
  return out;
}

/** Whether every file is there with its access (X_OK: a program; R_OK: data). */
function present(...files: Array<[string, number]>): boolean {
  try {
    for (const [file, mode] of files) fs.accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

/** Whether Debian's pocketsphinx and its US English model are installed (TOLK_RECOGNIZE's default). */
function pocketsphinxInstalled(): boolean {
  return present(['/usr/bin/pocketsphinx_batch', fs.constants.X_OK], ['/usr/share/pocketsphinx/model/en-us/en-us/mdef', fs.constants.R_OK]);
}

/** Whether Debian's espeak-ng program is installed (TOLK_SPEECH_ENGINES's default). */
function espeakNgInstalled(): boolean {
  return present(['/usr/bin/espeak-ng', fs.constants.X_OK]);
}

/** Whether apertium-apy is on PATH (TOLK_TRANSLATE's default). */
function apyInstalled(): boolean {
  return (process.env.PATH ?? '/usr/bin:/bin').split(':').some((dir) => dir && present([path.join(dir, 'apertium-apy'), fs.constants.X_OK]));
}

function isAddressOrCidr(v: string): boolean {
  try {
    if (v.includes('/')) ipaddr.parseCIDR(v);
    else ipaddr.parse(v);
    return true;
  } catch {
    return false;
  }
}

export type Config = {
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
  smtpUrl: string | undefined;
  webhookAllowOrigins: string[];
  simSpeed: number;
  logLevel: z.infer<typeof Env>['LOG_LEVEL'];
  dataDir: string;
  /** TOLK_MODELS_DIR, absolute: the offline engines' models. */
  modelsDir: string;
  /** TOLK_MODELS_MIRROR: where `tolk models pull` fetches NAME/FILE instead of each publisher's address. */
  modelsMirror: string | undefined;
  embeddedPgPort: number;
  bodyLimit: number;
  /** Run pg-boss workers in this process (off in most tests). */
  workers: boolean;
  /** Response window of a webhook delivery (api.md: 10 seconds). */
  webhookTimeoutMs: number;
  /** How often pg-boss looks for jobs whose worker died (its heartbeat lapsed). */
  jobMonitorSeconds: number;
  /** Simultaneous AI agent sessions per organization (429 too_many_sessions above). */
  maxSessions: number;
  /** Where the gateway's SIP stack binds and what it puts in Via and Contact (`host:port`; port 0 = a free one, for tests). */
  sipListen: string;
  /**
   * TOLK_SIP_LISTEN was not set: when the default port is taken (another
   * server process on this machine) the gateway binds a free port of the same
   * host instead. Set explicitly, a taken port stops the start.
   */
  sipListenIsDefault: boolean;
  /** Test-mode calls go to this SIP URI instead of the built-in simulated callee. */
  simSipPeer: string | undefined;
  /** A call ringing longer is canceled and ends no_answer. */
  ringTimeoutSeconds: number;
  /** The speech engines, in order (`pico`, `espeak`, `elevenlabs[=URL]`, `openai=URL`): a language is spoken by the first that speaks it. */
  speechEngines: string[];
  /** TOLK_RECOGNIZE: the speech recognizers in order (engines/speech). */
  recognize: RecognizeEngine[];
  recognizeTimeoutMs: number;
  /** The speech engines' keys and models (never logged). */
  speechKeys: SpeechKeys;
  /** Set: the gateway's SIP goes through this drachtio-server (gateway/drachtio.ts); unset: the embedded stack. */
  drachtio: { host: string; port: number; secret: string; /** How long to wait for it at start (default 10 s; tests shorten it). */ connectTimeoutMs?: number } | undefined;
  /** Seconds without a heartbeat after which a gateway's calls end failed/gateway_lost. */
  gatewayLostSeconds: number;
  /** TOLK_SECRET_KEY: the 32-byte key of the trunks' passwords (src/trunks/secret.ts); never logged. */
  secretKey: Buffer | undefined;
  /** TOLK_TRUNK_PING_SECONDS: how often each trunk is sent OPTIONS. */
  trunkPingSeconds: number;
  /** Seconds without RTP or RTCP from an answered call's far end before it is hung up (media_timeout). */
  mediaTimeoutSeconds: number;
  /** From of the mail the service sends: TOLK_MAIL_FROM, else `Tolk <no-reply@HOST>`, HOST being publicBaseUrl's host name. */
  mailFrom: string;
  /**
   * Sending a mail (mail/jobs.ts): the wait before the first retry, doubled
   * (with jitter) for each next one, and the number of retries after the
   * first attempt. No environment variables: tests shorten them.
   */
  mailRetryDelaySeconds: number;
  mailRetryLimit: number;
  /** /mcp serves the assistant tools (TOLK_MCP=on); off, it answers 503 mcp_disabled. */
  mcpEnabled: boolean;
  /** TOLK_TRUSTED_PROXIES: addresses and CIDRs whose X-Forwarded-For is believed. */
  trustedProxies: string[];
  /** TOLK_ANONYMOUS_JOIN=on: a public room's url lets anyone join; off: everyone needs a join link. */
  anonymousJoin: boolean;
  /** What anonymous visitors may do (no environment variables: tests change them). */
  publicLimits: PublicLimits;
  /** TOLK_TRANSLATE: the translation engines in order (engines/translate). */
  translate: TranslateEngine[];
  /** One translation request's time limit. */
  translateTimeoutMs: number;
  /** The engines' keys and the OpenAI-compatible model (never logged). */
  engineKeys: TranslateKeys;
  /** TOLK_METRICS_TOKEN: the Bearer token of GET /metrics; undefined: /metrics is not served (never logged). */
  metricsToken: string | undefined;
  /** TOLK_DRAIN_SECONDS: how long a shutting-down server answers /readyz 503 before it closes. */
  drainSeconds: number;
  /** TOLK_DB_POOL: the most connections the process's pool opens. */
  dbPool: number;
  /** Rooms' live voices: TOLK_MEDIA_SERVER, its api secret, the pages' ICE servers, Janus's public address. */
  media: { server: MediaServer; apiSecret: string | undefined; adminKey: string | undefined; iceServers: IceServer[]; publicIp: string | undefined };
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid environment: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const e = parsed.data;
  const modelsDir = path.resolve(e.TOLK_MODELS_DIR);
  // Unset lists begin with the offline engines whose models are installed (engines/models/defaults.ts).
  const offline = installedEngines(modelsDir);
  const spec = (x: EngineSpec) => x.name;
  const named = (name: string): EngineSpec => ({ name });
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.DATABASE_URL || undefined,
    smtpUrl: e.SMTP_URL || undefined,
    webhookAllowOrigins: e.TOLK_WEBHOOK_ALLOW_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean),
    simSpeed: e.TOLK_SIM_SPEED,
    logLevel: e.LOG_LEVEL,
    dataDir: e.TOLK_DATA_DIR,
    modelsDir,
    modelsMirror: e.TOLK_MODELS_MIRROR || undefined,
    embeddedPgPort: e.TOLK_EMBEDDED_PG_PORT,
    bodyLimit: e.TOLK_BODY_LIMIT,
    workers: true,
    webhookTimeoutMs: 10_000,
    jobMonitorSeconds: e.TOLK_JOB_MONITOR_SECONDS,
    maxSessions: e.TOLK_MAX_SESSIONS,
    sipListen: e.TOLK_SIP_LISTEN,
    sipListenIsDefault: !env.TOLK_SIP_LISTEN,
    simSipPeer: e.TOLK_SIM_SIP_PEER || undefined,
    ringTimeoutSeconds: e.TOLK_RING_TIMEOUT_SECONDS,
    speechEngines: env.TOLK_SPEECH_ENGINES === undefined ? offlineFirst(offline.speak, e.TOLK_SPEECH_ENGINES, (x) => x, (x) => x) : e.TOLK_SPEECH_ENGINES,
    media: { server: e.TOLK_MEDIA_SERVER, apiSecret: e.TOLK_JANUS_API_SECRET || undefined, adminKey: e.TOLK_JANUS_ADMIN_KEY || undefined, iceServers: e.TOLK_ICE_SERVERS, publicIp: e.TOLK_MEDIA_PUBLIC_IP || undefined },
    drachtio: e.DRACHTIO_HOST ? { host: e.DRACHTIO_HOST, port: e.DRACHTIO_PORT, secret: e.DRACHTIO_SECRET } : undefined,
    gatewayLostSeconds: e.TOLK_GATEWAY_LOST_SECONDS,
    secretKey: e.TOLK_SECRET_KEY ? Buffer.from(e.TOLK_SECRET_KEY, 'hex') : undefined,
    trunkPingSeconds: e.TOLK_TRUNK_PING_SECONDS,
    mediaTimeoutSeconds: e.TOLK_MEDIA_TIMEOUT_SECONDS,
    mailFrom: e.TOLK_MAIL_FROM?.trim() ?? '',
    // 6 attempts: retries after about 1, 2, 4, 8 and 16 minutes (each up to
    // twice that with pg-boss's jitter), so the last one 30 to 60 minutes in.
    mailRetryDelaySeconds: 60,
    mailRetryLimit: 5,
    mcpEnabled: e.TOLK_MCP === 'on',
    trustedProxies: e.TOLK_TRUSTED_PROXIES,
    anonymousJoin: e.TOLK_ANONYMOUS_JOIN === 'on',
    publicLimits: PUBLIC_LIMITS,
    translate: env.TOLK_TRANSLATE === undefined ? offlineFirst(offline.translate, e.TOLK_TRANSLATE, spec, named) : e.TOLK_TRANSLATE,
    recognize: env.TOLK_RECOGNIZE === undefined ? offlineFirst(offline.recognize, e.TOLK_RECOGNIZE, spec, named) : e.TOLK_RECOGNIZE,
    recognizeTimeoutMs: e.TOLK_RECOGNIZE_TIMEOUT_MS,
    speechKeys: {
      ...(e.DEEPGRAM_API_KEY ? { deepgram: e.DEEPGRAM_API_KEY } : {}),
      ...(e.ELEVENLABS_API_KEY ? { elevenlabs: e.ELEVENLABS_API_KEY } : {}),
      ...(e.OPENAI_API_KEY ? { openai: e.OPENAI_API_KEY } : {}),
      openaiSttModel: e.TOLK_OPENAI_STT_MODEL,
      openaiTtsModel: e.TOLK_OPENAI_TTS_MODEL,
      voskLangs: e.TOLK_VOSK_LANGS,
      ...(e.TOLK_WHISPER_MODEL ? { whisperModel: e.TOLK_WHISPER_MODEL } : {}),
    },
    translateTimeoutMs: e.TOLK_TRANSLATE_TIMEOUT_MS,
    engineKeys: {
      ...(e.LIBRETRANSLATE_API_KEY ? { libretranslate: e.LIBRETRANSLATE_API_KEY } : {}),
      ...(e.DEEPL_API_KEY ? { deepl: e.DEEPL_API_KEY } : {}),
      ...(e.OPENAI_API_KEY ? { openai: e.OPENAI_API_KEY } : {}),
      openaiTranslateModel: e.TOLK_OPENAI_TRANSLATE_MODEL,
    },
    metricsToken: e.TOLK_METRICS_TOKEN || undefined,
    drainSeconds: e.TOLK_DRAIN_SECONDS,
    dbPool: e.TOLK_DB_POOL,
    ...overrides,
  };
  config.publicLimits = { ...PUBLIC_LIMITS, ...overrides.publicLimits };
  // After the overrides: the default follows the public base URL given.
  if (!config.mailFrom) config.mailFrom = `Tolk <no-reply@${new URL(config.publicBaseUrl).hostname || 'localhost'}>`;
  return config;
}

/** Date of the interface description; bumped when the public shape changes. */
export const API_VERSION_DATE = '2026-11-22';
export const SERVICE_VERSION = `${API_VERSION_DATE}.v1`;
