import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';

// Janus's API over its WebSockets transport (https://janus.conf.meetecho.com/docs/rest.html,
// the same JSON over a `janus-protocol` WebSocket): sessions, handles attached to a
// plugin, plugin requests (answered at once: "success") and messages (an "ack", then an
// "event" with the same transaction, carrying a JSEP where there is one), and the
// events Janus sends on its own (a publisher gone, a PeerConnection up or down).
//
// Meetecho's own Node client (janode) needs `unix-dgram`, a native module built at
// install time for the Node that runs npm, which the service's Node 24 cannot load;
// the part of the protocol the service uses is this file.

export type Jsep = { type: 'offer' | 'answer'; sdp: string };
export type PluginEvent = { data: Record<string, unknown>; jsep?: Jsep };
type Msg = Record<string, unknown> & { janus: string; transaction?: string; session_id?: number; sender?: number };

export class JanusError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** One WebSocket to one Janus; closed (its `closed` event) when Janus goes away. */
export class JanusConnection extends EventEmitter {
  private readonly pending = new Map<string, { resolve: (m: Msg) => void; reject: (e: Error) => void; ackOnly: boolean }>();
  private readonly handles = new Map<number, JanusHandle>();
  private readonly sessions = new Set<JanusSession>();
  private isClosed = false;
  readonly url: string;
  /** The local address Janus sees this service at (where its forwarders send). */
  localAddress = '127.0.0.1';

  private readonly ws: WebSocket;
  private readonly apiSecret: string | undefined;

  private constructor(ws: WebSocket, url: string, apiSecret?: string) {
    super();
    this.ws = ws;
    this.url = url;
    this.apiSecret = apiSecret;
    // Every page linked through this process watches its server's connection.
    this.setMaxListeners(0);
    ws.on('message', (d) => this.onMessage(String(d)));
    ws.on('close', () => this.onClose());
    ws.on('error', () => this.onClose());
  }

  static async open(url: string, apiSecret?: string, timeoutMs = 5000): Promise<JanusConnection> {
    const ws = new WebSocket(url, 'janus-protocol', { handshakeTimeout: timeoutMs });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', (e) => reject(new Error(`Janus at ${url} does not answer: ${e.message}`)));
    });
    const c = new JanusConnection(ws, url, apiSecret);
    const sock = (ws as unknown as { _socket?: { localAddress?: string } })._socket;
    if (sock?.localAddress) c.localAddress = sock.localAddress.replace(/^::ffff:/, '');
    return c;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Sends a request; resolves with Janus's answer ("success", or the "event" of a plugin message). */
  send(body: Record<string, unknown>, o: { ackOnly?: boolean; timeoutMs?: number } = {}): Promise<Msg> {
    if (this.isClosed) return Promise.reject(new JanusError(0, 'the media server is gone'));
    const transaction = randomBytes(9).toString('base64url');
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(transaction);
        reject(new JanusError(0, `the media server did not answer ${String(body.janus)} within ${(o.timeoutMs ?? 10_000) / 1000} s`));
      }, o.timeoutMs ?? 10_000);
      this.pending.set(transaction, {
        resolve: (m) => { clearTimeout(timer); resolve(m); },
        reject: (e) => { clearTimeout(timer); reject(e); },
        ackOnly: o.ackOnly ?? false,
      });
      this.ws.send(JSON.stringify({ ...body, transaction, ...(this.apiSecret ? { apisecret: this.apiSecret } : {}) }));
    });
  }

  async createSession(): Promise<JanusSession> {
    const r = await this.send({ janus: 'create' });
    const s = new JanusSession(this, (r.data as { id: number }).id);
    this.sessions.add(s);
    return s;
  }

  /** @internal */
  register(h: JanusHandle): void {
    this.handles.set(h.id, h);
  }

  /** @internal */
  unregister(h: JanusHandle): void {
    this.handles.delete(h.id);
  }

  /** @internal */
  forget(s: JanusSession): void {
    this.sessions.delete(s);
  }

  close(): void {
    this.ws.close();
    this.onClose();
  }

  private onMessage(text: string): void {
    let m: Msg;
    try {
      m = JSON.parse(text) as Msg;
    } catch {
      return;
    }
    const p = m.transaction ? this.pending.get(m.transaction) : undefined;
    if (p) {
      if (m.janus === 'ack' && !p.ackOnly) return; // a plugin message: its event follows
      this.pending.delete(m.transaction!);
      if (m.janus === 'error') {
        const e = m.error as { code: number; reason: string };
        p.reject(new JanusError(e.code, e.reason));
        return;
      }
      const plugin = (m.plugindata as { data?: Record<string, unknown> } | undefined)?.data;
      if (plugin && typeof plugin.error === 'string') {
        p.reject(new JanusError(Number(plugin.error_code ?? 0), plugin.error));
        return;
      }
      p.resolve(m);
      return;
    }
    // Janus's own events: to their handle.
    const h = m.sender !== undefined ? this.handles.get(m.sender) : undefined;
    if (h) h.onEvent(m);
  }

  private onClose(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const p of this.pending.values()) p.reject(new JanusError(0, 'the media server is gone'));
    this.pending.clear();
    for (const s of this.sessions) s.onGone();
    this.emit('closed');
  }
}

export class JanusSession {
  private readonly keepalive: NodeJS.Timeout;
  private destroyed = false;
  readonly conn: JanusConnection;
  readonly id: number;

  constructor(conn: JanusConnection, id: number) {
    this.conn = conn;
    this.id = id;
    // Janus ends a session silent for its session_timeout (60 s by default).
    this.keepalive = setInterval(() => { void conn.send({ janus: 'keepalive', session_id: id }, { ackOnly: true }).catch(() => {}); }, 25_000);
    this.keepalive.unref();
  }

  async attach(plugin: 'janus.plugin.videoroom' | 'janus.plugin.streaming'): Promise<JanusHandle> {
    const r = await this.conn.send({ janus: 'attach', session_id: this.id, plugin });
    const h = new JanusHandle(this, (r.data as { id: number }).id);
    this.conn.register(h);
    return h;
  }

  /** Ends the session: its handles, their PeerConnections, publishers and subscriptions. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    clearInterval(this.keepalive);
    this.conn.forget(this);
    await this.conn.send({ janus: 'destroy', session_id: this.id }).catch(() => {});
  }

  /** @internal the connection is gone. */
  onGone(): void {
    this.destroyed = true;
    clearInterval(this.keepalive);
  }
}

export class JanusHandle extends EventEmitter {
  readonly session: JanusSession;
  readonly id: number;

  constructor(session: JanusSession, id: number) {
    super();
    this.session = session;
    this.id = id;
  }

  /** A synchronous plugin request (create, exists, rtp_forward, ...): its answer's data. */
  async request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await this.session.conn.send({ janus: 'message', session_id: this.session.id, handle_id: this.id, body });
    return ((r.plugindata as { data?: Record<string, unknown> } | undefined)?.data) ?? {};
  }

  /** An asynchronous plugin message (join, configure, watch, start, ...): its event, with Janus's JSEP where there is one. */
  async message(body: Record<string, unknown>, jsep?: Jsep, timeoutMs?: number): Promise<PluginEvent> {
    const r = await this.session.conn.send({
      janus: 'message', session_id: this.session.id, handle_id: this.id, body, ...(jsep ? { jsep } : {}),
    }, timeoutMs ? { timeoutMs } : {});
    const data = ((r.plugindata as { data?: Record<string, unknown> } | undefined)?.data) ?? {};
    return { data, ...(r.jsep ? { jsep: r.jsep as Jsep } : {}) };
  }

  async detach(): Promise<void> {
    this.session.conn.unregister(this);
    await this.session.conn.send({ janus: 'detach', session_id: this.session.id, handle_id: this.id }).catch(() => {});
  }

  /**
   * @internal Janus's events for this handle: `event` (plugin data, and JSEP), `webrtcup`,
   * `hangup`, `media` ({type, receiving}), `detached`.
   */
  onEvent(m: Msg): void {
    if (m.janus === 'event') {
      const data = ((m.plugindata as { data?: Record<string, unknown> } | undefined)?.data) ?? {};
      this.emit('event', { data, ...(m.jsep ? { jsep: m.jsep as Jsep } : {}) } satisfies PluginEvent);
    } else if (m.janus === 'detached') {
      this.session.conn.unregister(this);
      this.emit('detached');
    } else {
      this.emit(m.janus, m);
    }
  }
}
