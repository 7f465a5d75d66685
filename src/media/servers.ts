import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import type { IceServer } from './settings.ts';
import { JanusConnection, JanusError, type JanusHandle, type JanusSession } from './janus-client.ts';
import { superviseJanus, type JanusProcess, type SupervisedJanus } from './janus-process.ts';

// The media servers rooms' voices go through (TOLK_MEDIA_SERVER, operator.md):
//
// - `janus`: one Janus this process runs itself (janus-process.ts). Its API is on
//   loopback with a secret only this process knows, so its rooms are this
//   process's: people joined to a room through another process of the service
//   are on that process's Janus. Several processes share rooms through Janus
//   servers the operator runs:
// - `janus=ws://A,ws://B`: a room lives on one of them, the same for every
//   process (chosen from the room's id, so no process needs to ask another),
//   made there by the first process that needs it. Its api_secret is
//   TOLK_JANUS_API_SECRET.
// - `off`: no voices; the pages keep the microphone-to-captions path.
//
// A Janus that goes away ends its rooms' audio: every page linked through it is
// told (its link closes) and links again once the server is back (the one we run
// is restarted; an operator's is tried again on the next link).

/** How long a room stays on the Janus we run after its last page here went. */
const ROOM_GRACE_MS = 30_000;

export type Log = { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };

/** A Janus as the service reaches it: its connection, and the admin key its rooms and forwarders need. */
export type JanusServer = { url: string; conn: JanusConnection; adminKey: string | undefined };

export class MediaServers {
  private readonly own: SupervisedJanus | null;
  private readonly urls: string[];
  private readonly apiSecret: string | undefined;
  private readonly adminKey: string | undefined;
  private readonly conns = new Map<string, Promise<JanusServer>>();
  /** Rooms made on each server (by url), forgotten when it goes away. */
  private readonly made = new Map<string, Set<string>>();
  private admin = new Map<string, Promise<{ session: JanusSession; handle: JanusHandle; streaming: JanusHandle }>>();
  /** Interpretation mountpoints made on each server (by url): their ports. */
  private readonly mounts = new Map<string, Map<string, Promise<number>>>();
  readonly iceServers: IceServer[];
  /** Why there are no voices, when there are none. */
  readonly unavailable: string | null;
  /** No media server by choice (TOLK_MEDIA_SERVER=off). */
  private readonly off: boolean;

  constructor(o: { own?: SupervisedJanus | null; urls?: string[]; apiSecret?: string | undefined; adminKey?: string | undefined; iceServers: IceServer[]; unavailable?: string | null }) {
    this.own = o.own ?? null;
    this.urls = o.urls ?? [];
    this.apiSecret = o.apiSecret;
    this.adminKey = o.adminKey;
    this.iceServers = o.iceServers;
    this.off = !this.own && this.urls.length === 0 && !o.unavailable;
    this.unavailable = o.unavailable ?? (this.off ? 'this service has no media server (TOLK_MEDIA_SERVER=off)' : null);
  }

  get available(): boolean {
    return this.unavailable === null;
  }

  /** Whether its rooms are shared with other processes (Janus servers the operator runs), not this process's own. */
  get shared(): boolean {
    return this.own === null && this.urls.length > 0;
  }

  /** Operator Janus servers whose last connection failed or closed (until one opens again). */
  private readonly failing = new Set<string>();

  /**
   * For /readyz: `degraded` while the Janus we run is down or did not start, or while an operator's
   * Janus could not be reached (its last connection failed or closed); null where voices are off by choice.
   */
  state(): 'ok' | 'degraded' | null {
    if (this.off) return null;
    if (this.unavailable !== null || (this.own && !this.own.current())) return 'degraded';
    return this.urls.some((u) => this.failing.has(u)) ? 'degraded' : 'ok';
  }

  /** One line for the start banner. */
  describe(): string {
    if (this.unavailable !== null) return `none (${this.unavailable}; docs/operating.md, Live voices)`;
    const own = this.own?.current();
    return own ? `Janus, run by the service (pid ${own.pid})` : `Janus at ${this.urls.join(', ')}`;
  }

  /** The Janus room `roomId` lives on, the room made there if it was not, with at most `publishers` voices. */
  async roomServer(roomId: string, publishers: number): Promise<JanusServer> {
    const server = await this.server(this.urlFor(roomId));
    const made = this.made.get(server.url) ?? new Set<string>();
    this.made.set(server.url, made);
    if (!made.has(roomId)) {
      const { handle } = await this.adminOf(server);
      try {
        await handle.request({
          request: 'create', room: roomId, publishers, audiocodec: 'opus', is_private: true, permanent: false,
          notify_joining: false, ...(server.adminKey ? { admin_key: server.adminKey } : {}),
        });
      } catch (err) {
        // 427: made meanwhile (another process, another page).
        if (!(err instanceof JanusError && err.code === 427)) throw err;
      }
      made.add(roomId);
    }
    return server;
  }

  /** The room is no longer on its Janus (destroyed there): the next page to link makes it again. */
  forget(roomId: string): void {
    try {
      this.made.get(this.urlFor(roomId))?.delete(roomId);
    } catch {
      // No server now: nothing to forget.
    }
  }

  /** Pages of each room linked through this process (retain/release). */
  private readonly linked = new Map<string, number>();

  /** A page of the room links through this process. */
  retain(roomId: string): void {
    this.linked.set(roomId, (this.linked.get(roomId) ?? 0) + 1);
  }

  /**
   * A page of the room is gone. The last one on a Janus this process runs (no other process
   * reaches it) takes the room's VideoRoom and interpretation mountpoints with it, 30 s later
   * unless a page links again meanwhile; on an
   * operator's Janus, shared by every process, they stay until it restarts.
   */
  release(roomId: string): void {
    const n = (this.linked.get(roomId) ?? 1) - 1;
    if (n > 0) return void this.linked.set(roomId, n);
    this.linked.delete(roomId);
    // After a grace period (a page reloading links again at once), if nobody linked meanwhile.
    if (this.own) {
      setTimeout(() => { if (!this.linked.has(roomId)) void this.endRoom(roomId).catch(() => {}); }, ROOM_GRACE_MS).unref();
    }
  }

  /** Ends a room's voices: every publisher and subscriber on it is dropped, and its interpretation channels. */
  private async endRoom(roomId: string): Promise<void> {
    const url = this.urlFor(roomId);
    const server = await this.server(url);
    const { handle, streaming } = await this.adminOf(server);
    const key = server.adminKey ? { admin_key: server.adminKey } : {};
    if (this.made.get(url)?.delete(roomId)) await handle.request({ request: 'destroy', room: roomId, ...key }).catch(() => {});
    const mounts = this.mounts.get(url);
    for (const id of [...(mounts?.keys() ?? [])].filter((m) => m.startsWith(`${roomId}.`))) {
      mounts!.delete(id);
      await streaming.request({ request: 'destroy', id, ...key }).catch(() => {});
    }
  }

  /**
   * The Streaming mountpoint of a room's interpretation in one language (`ROOM.LANG`), made if it
   * was not: where to send its RTP (Opus, payload type 111), and its id for the pages to watch.
   */
  async channel(roomId: string, lang: string): Promise<{ id: string; host: string; port: number; server: JanusServer }> {
    const server = await this.server(this.urlFor(roomId));
    const id = `${roomId}.${lang}`;
    const mounts = this.mounts.get(server.url) ?? new Map<string, Promise<number>>();
    this.mounts.set(server.url, mounts);
    let port = mounts.get(id);
    if (!port) {
      port = this.adminOf(server).then(async ({ streaming }) => {
        const key = server.adminKey ? { admin_key: server.adminKey } : {};
        try {
          const r = await streaming.request({
            request: 'create', type: 'rtp', id, description: `${roomId} ${lang}`, is_private: true, permanent: false,
            media: [{ type: 'audio', mid: 'i', label: 'interpretation', port: 0, pt: 111, codec: 'opus' }], ...key,
          });
          const ports = ((r.stream as { ports?: Array<{ port: number }> } | undefined)?.ports) ?? [];
          if (!ports[0]?.port) throw new Error('the media server gave the interpretation channel no port');
          return ports[0].port;
        } catch (err) {
          // 456: made meanwhile (another process of a shared Janus): its port, from its info.
          if (!(err instanceof JanusError && err.code === 456)) throw err;
          const r = await streaming.request({ request: 'info', id, ...key });
          const port = (r.info as { media?: Array<{ port?: number }> } | undefined)?.media?.[0]?.port;
          if (!port) throw new Error('the media server gave the interpretation channel no port');
          return port;
        }
      });
      port.catch(() => mounts.delete(id));
      mounts.set(id, port);
    }
    return { id, host: new URL(server.url).hostname, port: await port, server };
  }

  /**
   * Who publishes a voice in the room on its Janus now: their VideoRoom id (Janus's) and display
   * (their participant id, rooms/voices.ts), and that server; null when the room is not on it
   * (nobody linked a voice yet, or it went).
   */
  async publishers(roomId: string): Promise<{ server: JanusServer; publishers: Array<{ id: string | number; participant: string }> } | null> {
    const server = await this.server(this.urlFor(roomId));
    const { handle } = await this.adminOf(server);
    try {
      const r = await handle.request({ request: 'listparticipants', room: roomId });
      const ps = (r.participants as Array<{ id: string | number; display?: string; publisher?: boolean }> | undefined) ?? [];
      return { server, publishers: ps.filter((p) => p.publisher).map((p) => ({ id: p.id, participant: p.display ?? String(p.id) })) };
    } catch (err) {
      // 426: no such room.
      if (err instanceof JanusError && err.code === 426) return null;
      throw err;
    }
  }

  /** A plugin request with the server's admin key (rtp_forward, stop_rtp_forward). */
  async adminRequest(server: JanusServer, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { handle } = await this.adminOf(server);
    return handle.request({ ...body, ...(server.adminKey ? { admin_key: server.adminKey } : {}) });
  }

  private urlFor(roomId: string): string {
    if (this.own) {
      const j = this.own.current();
      if (!j) throw new JanusError(0, 'the media server is restarting');
      return j.url;
    }
    if (this.urls.length === 0) throw new JanusError(0, this.unavailable ?? 'no media server');
    const n = createHash('sha256').update(roomId).digest().readUInt32BE(0);
    return this.urls[n % this.urls.length]!;
  }

  private ownProcess(url: string): JanusProcess | null {
    const j = this.own?.current();
    return j && j.url === url ? j : null;
  }

  /** The connection to `url`, opened once and again after it closed. */
  private server(url: string): Promise<JanusServer> {
    let p = this.conns.get(url);
    if (!p) {
      const own = this.ownProcess(url);
      p = JanusConnection.open(url, own ? own.apiSecret : this.apiSecret).then((conn) => {
        this.failing.delete(url);
        conn.once('closed', () => {
          if (!own) this.failing.add(url);
          this.conns.delete(url);
          this.made.delete(url);
          this.admin.delete(url);
          this.mounts.delete(url);
        });
        return { url, conn, adminKey: own ? own.adminKey : this.adminKey };
      });
      p.catch(() => {
        this.conns.delete(url);
        if (!own) this.failing.add(url);
      });
      this.conns.set(url, p);
    }
    return p;
  }

  private adminOf(server: JanusServer): Promise<{ session: JanusSession; handle: JanusHandle; streaming: JanusHandle }> {
    let p = this.admin.get(server.url);
    if (!p) {
      p = server.conn.createSession().then(async (session) => ({
        session, handle: await session.attach('janus.plugin.videoroom'), streaming: await session.attach('janus.plugin.streaming'),
      }));
      p.catch(() => this.admin.delete(server.url));
      this.admin.set(server.url, p);
    }
    return p;
  }

  async close(): Promise<void> {
    for (const p of this.conns.values()) (await p.catch(() => null))?.conn.close();
    this.conns.clear();
    await this.own?.stop();
  }
}

/** What TOLK_MEDIA_SERVER asks for: the Janus we run started (or why not, logged: rooms go on without voices). */
export async function startMedia(config: Config, log: Log, o: { iceOnly?: string } = {}): Promise<MediaServers> {
  const m = config.media;
  if (m.server.kind === 'off') return new MediaServers({ iceServers: m.iceServers });
  if (m.server.kind === 'remote') return new MediaServers({ urls: m.server.urls, apiSecret: m.apiSecret, adminKey: m.adminKey, iceServers: m.iceServers });
  try {
    const stun = m.iceServers.find((s) => s.urls.startsWith('stun:'))?.urls.slice(5);
    const own = await superviseJanus({ publicIp: m.publicIp, stun, iceOnly: o.iceOnly ?? process.env.TOLK_JANUS_ICE_ONLY, log });
    return new MediaServers({ own, iceServers: m.iceServers });
  } catch (err) {
    log.warn({ err: (err as Error).message }, `rooms have no live voices: ${(err as Error).message}`);
    return new MediaServers({ iceServers: m.iceServers, unavailable: `the media server did not start: ${(err as Error).message}` });
  }
}
