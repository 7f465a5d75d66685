import dgram from 'node:dgram';
import OpusScript from 'opusscript';
import type { MediaServers, JanusServer } from '../../media/servers.ts';
import type { MediaPlane } from '../../../gateway/media/plane.ts';
import { rtpPayload } from '../../media/forwarded-voice.ts';

// The room's own voices for the people on the phone in it (operator.md, Phone participants: they
// hear "the room's mix without themselves, from the media server where there is one"). The voices
// of a room's pages are on its Janus (rooms/voices.ts: each person a VideoRoom publisher, named by
// their participant id); for each room with a phone line in this process, every publisher's audio
// is forwarded to us (VideoRoom rtp_forward, Opus in RTP to a socket of ours, as a page's own voice
// is for its recognizer, media/forwarded-voice.ts), decoded at 8 kHz, and laid under what the line
// plays (the media plane's bed: a frame of each voice summed every 20 ms). A phone's own voice is
// not on Janus, so the mix is without them by itself. The publishers are read every POLL_MS
// (listparticipants): someone who starts speaking is heard within that, someone who stops is let go.
// Without a media server, or with nobody publishing, there is no mix: the phone hears the room
// through its phrases alone (phone-line.ts).

const POLL_MS = 2_000;
const RATE = 8_000;
/** The mid of a page's one audio track (room-voices.js publishes one audio transceiver). */
const AUDIO_MID = '0';

type Log = { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };

/** One publisher's voice forwarded to us: its VideoRoom id (Janus's), its participant id, our socket and decoder. */
type Forward = { id: string | number; participant: string; socket: dgram.Socket; opus: OpusScript; streamId: number | undefined };

class RoomMix {
  readonly keys = new Set<string>();
  private readonly forwards = new Map<string, Forward>();
  private server: JanusServer | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly media: MediaServers;
  private readonly plane: MediaPlane;
  private readonly roomId: string;
  private readonly log: Log;

  constructor(media: MediaServers, plane: MediaPlane, roomId: string, log: Log) {
    this.media = media;
    this.plane = plane;
    this.roomId = roomId;
    this.log = log;
    void this.poll();
  }

  /** Whether this participant's voice is in the mix now (they publish on the room's Janus). */
  publishes(participantId: string): boolean {
    for (const f of this.forwards.values()) if (f.participant === participantId) return true;
    return false;
  }

  private async poll(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    try {
      const found = await this.media.publishers(this.roomId);
      if (found && this.server && found.server !== this.server) this.drop([...this.forwards.keys()]);
      this.server = found?.server ?? null;
      const now = new Map((found?.publishers ?? []).map((p) => [String(p.id), p]));
      this.drop([...this.forwards.keys()].filter((id) => !now.has(id)));
      for (const [key, p] of now) if (!this.forwards.has(key) && !this.stopped) await this.forward(key, p);
    } catch (err) {
      this.log.warn({ room: this.roomId, err: String(err) }, 'the room\'s voices could not be read for its phone lines');
      this.drop([...this.forwards.keys()]);
    }
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.poll(), POLL_MS);
      this.timer.unref();
    }
  }

  private async forward(key: string, publisher: { id: string | number; participant: string }): Promise<void> {
    const server = this.server!;
    const socket = dgram.createSocket(server.conn.localAddress.includes(':') ? 'udp6' : 'udp4');
    await new Promise<void>((ok, fail) => { socket.once('error', fail); socket.bind(0, server.conn.localAddress, () => ok()); });
    const opus = new OpusScript(RATE, 1, OpusScript.Application.VOIP);
    const f: Forward = { id: publisher.id, participant: publisher.participant, socket, opus, streamId: undefined };
    this.forwards.set(key, f);
    socket.on('message', (msg) => {
      const payload = rtpPayload(msg);
      if (!payload) return;
      let pcm: Buffer;
      try {
        pcm = opus.decode(payload);
      } catch {
        return;
      }
      const frame = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length - (pcm.length % 2)));
      for (const line of this.keys) this.plane.bed(line, `voice:${key}`, frame);
    });
    socket.on('error', () => {});
    try {
      const r = await this.media.adminRequest(server, {
        request: 'rtp_forward', room: this.roomId, publisher_id: publisher.id,
        host: server.conn.localAddress, host_family: server.conn.localAddress.includes(':') ? 'ipv6' : 'ipv4',
        streams: [{ mid: AUDIO_MID, port: socket.address().port }],
      });
      f.streamId = (r.forwarders as Array<{ stream_id?: number }> | undefined)?.[0]?.stream_id;
      this.log.info({ room: this.roomId, participant: publisher.participant }, 'a voice of the room is mixed for its phone lines');
    } catch (err) {
      this.log.warn({ room: this.roomId, participant: publisher.participant, err: String(err) }, 'a voice of the room could not be forwarded to its phone lines');
      this.drop([key]);
    }
  }

  private drop(ids: string[]): void {
    for (const id of ids) {
      const f = this.forwards.get(id);
      if (!f) continue;
      this.forwards.delete(id);
      f.socket.close();
      f.opus.delete();
      const server = this.server;
      if (f.streamId !== undefined && server && !server.conn.closed) {
        void this.media.adminRequest(server, { request: 'stop_rtp_forward', room: this.roomId, publisher_id: f.id, stream_id: f.streamId }).catch(() => {});
      }
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.drop([...this.forwards.keys()]);
  }
}

/** This process's mixes, one per room with a phone line here. */
export class RoomMixes {
  private readonly rooms = new Map<string, RoomMix>();
  private readonly media: MediaServers;
  private readonly plane: MediaPlane;
  private readonly log: Log;

  constructor(media: MediaServers, plane: MediaPlane, log: Log) {
    this.media = media;
    this.plane = plane;
    this.log = log;
  }

  /** Whether the room's voices can be mixed here at all (a media server). */
  get available(): boolean {
    return this.media.available;
  }

  /** Phone line `key` is in room `roomId`: it hears the room's voices from now on. */
  add(roomId: string, key: string): void {
    if (!this.media.available) return;
    let m = this.rooms.get(roomId);
    if (!m) this.rooms.set(roomId, (m = new RoomMix(this.media, this.plane, roomId, this.log)));
    m.keys.add(key);
  }

  remove(roomId: string, key: string): void {
    const m = this.rooms.get(roomId);
    if (!m) return;
    m.keys.delete(key);
    if (m.keys.size > 0) return;
    m.stop();
    this.rooms.delete(roomId);
  }

  /** Whether `participantId`'s voice is in room `roomId`'s mix now (their phrase in a phone's own language is then not spoken to it). */
  publishes(roomId: string, participantId: string): boolean {
    return this.rooms.get(roomId)?.publishes(participantId) ?? false;
  }

  stop(): void {
    for (const m of this.rooms.values()) m.stop();
    this.rooms.clear();
  }
}
