import type { WebSocket } from 'ws';
import { prepared, type Queryable } from '../db/pool.ts';
import type { Gone, LogBus } from '../services.ts';

// How long a room page's audio socket (rooms/audio.ts) may stay open. It
// belongs to a person in a room, and goes with them:
//  - when they are no longer present: they left (on this process or any
//    other), were marked absent (their page went quiet), or the room ended.
//    Each of those notifies the room (LOG_CHANNEL, on every process), and
//    the socket's process looks at once; it also looks every
//    PRESENCE_RECHECK_MS in case a notification was missed. The socket is
//    closed with 4009, and what it was saying is dropped, not recognized;
//  - when it goes audioIdleSeconds (PublicLimits) without one whole message
//    (audio, or the page's `ping` or `end`): 4008. A page whose microphone
//    is muted, or whose push-to-talk button is up, pings every 20 s; a
//    client that trickles a message's bytes, or sends nothing, is closed;
//  - when its peer is gone without a word (a laptop shut, a network
//    dropped): the server pings every PING_EVERY_MS and ends a socket that
//    did not answer the last ping (browsers answer pings by themselves).

/** How often presence is looked at when no notification came. */
const PRESENCE_RECHECK_MS = 30_000;
/** Presence is looked at no more often than this, however busy the room (each phrase notifies it). */
const PRESENCE_MIN_GAP_MS = 500;
const PING_EVERY_MS = 30_000;

export type MicGone = 'left' | 'idle' | 'dead';

export type MicWatchOptions = {
  pool: Queryable;
  /** The room's notifications (Services.logBus): a person leaving, marked absent or the room ending wakes the watch. */
  bus: LogBus;
  ws: WebSocket;
  roomId: string;
  participantId: string;
  idleMs: number;
  /** Called once, when the socket must go (and why); the watch then stops by itself. */
  onGone: (why: MicGone) => void;
  /** Overrides for tests: how often to ping the peer and to look at presence without a notification. */
  pingEveryMs?: number;
};

/** Whether the participant is still in the room (not left, not absent, the room not ended). */
export async function present(pool: Queryable, participantId: string): Promise<boolean> {
  const { rows } = await pool.query<{ here: boolean }>(prepared(`SELECT left_at IS NULL AS here FROM room_participants WHERE id = $1`, [participantId]));
  return rows[0]?.here === true;
}

/** Watches one audio socket; returns what stops the watch (call it when the socket closes). */
export function watchMicrophone(o: MicWatchOptions): () => void {
  let stopped = false;
  let lastMessageAt = Date.now();
  let answered = true;
  const gone = (why: MicGone) => {
    if (stopped) return;
    stop();
    o.onGone(why);
  };
  const onMessage = () => { lastMessageAt = Date.now(); };
  const onPong = () => { answered = true; };
  o.ws.on('message', onMessage);
  o.ws.on('pong', onPong);

  const idle = setInterval(() => {
    if (Date.now() - lastMessageAt > o.idleMs) gone('idle');
  }, Math.max(50, Math.min(5000, o.idleMs / 4)));
  idle.unref();
  const ping = setInterval(() => {
    if (!answered) return gone('dead');
    answered = false;
    try {
      o.ws.ping();
    } catch {
      gone('dead');
    }
  }, o.pingEveryMs ?? PING_EVERY_MS);
  ping.unref();

  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(idle);
    clearInterval(ping);
    o.ws.off('message', onMessage);
    o.ws.off('pong', onPong);
  };

  // Presence: at once, then at each notification of the room (or every PRESENCE_RECHECK_MS).
  void (async () => {
    while (!stopped) {
      const mark = o.bus.mark();
      let here = true;
      try {
        here = await present(o.pool, o.participantId);
      } catch {
        // The database is away: the person stays until it can say otherwise.
      }
      if (stopped) return;
      if (!here) return gone('left');
      await o.bus.waitFor(o.roomId, PRESENCE_RECHECK_MS, mark, o.ws as unknown as Gone);
      await new Promise((r) => setTimeout(r, PRESENCE_MIN_GAP_MS));
    }
  })();
  return stop;
}
