// A person dialing into a room, for the phone participants' tests: SIPp (Debian's sip-tester)
// places the call through the carrier (Kamailio) as a UAC, types the PIN (SIP INFO, or RFC 4733
// events SIPp replays from its own captures) and hangs up or waits for our BYE; the call's audio
// is either SIPp's (its captures) or a socket of the test's (PhoneMedia), named in the INVITE's
// SDP, that speaks recorded speech as RTP at the pace of the audio and records what it receives.

import { createSocket, type Socket } from 'node:dgram';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeG711, encodeG711, parseRtp } from '../../gateway/media/rtp.ts';
import { startSipp, type Sipp } from './sipp.ts';

export type CallerPlan = {
  /** The number dialed (E.164) and the carrier's `host:port` the INVITE goes to. */
  to: string;
  carrier: string;
  /** The caller's own number, in From. */
  from: string;
  /** Where the caller's audio is: a test socket's port (SIP INFO digits), or SIPp's own (RFC 4733 digits from its captures). */
  media: { port: number } | 'sipp';
  /** The PINs typed, one after another, each ended with `#`, after `waitMs` (the greeting) and `betweenMs` between them. */
  pins: string[];
  waitMs: number;
  betweenMs?: number;
  /** The caller hangs up this long after the last PIN; unset: it waits for our BYE (up to byeTimeoutMs). */
  hangupAfterMs?: number;
  byeTimeoutMs?: number;
};

const CRLF_BLOCK = (lines: string[]) => `<![CDATA[\n${lines.join('\n')}\n\n]]>`;

/** SIPp's scenario for the plan. */
export function callerScenario(p: CallerPlan): string {
  const sdpPort = p.media === 'sipp' ? '[media_port]' : String(p.media.port);
  const dialog = (method: string, cseq: number, extra: string[] = [], body = '') => [
    `${method} [next_url] SIP/2.0`,
    'Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]',
    '[routes]',
    `From: "Caller" <sip:${p.from}@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]`,
    '[last_To:]',
    'Call-ID: [call_id]',
    `CSeq: ${cseq} ${method}`,
    'Contact: <sip:caller@[local_ip]:[local_port]>',
    'Max-Forwards: 70',
    ...extra,
    `Content-Length: ${body === '' ? 0 : '[len]'}`,
    '',
    ...(body === '' ? [] : [body]),
  ];
  const steps: string[] = [];
  let cseq = 2;
  p.pins.forEach((pin, i) => {
    steps.push(`<pause milliseconds="${i === 0 ? p.waitMs : p.betweenMs ?? 4_000}"/>`);
    for (const digit of `${pin}#`) {
      if (p.media === 'sipp') {
        const name = digit === '#' ? 'pound' : digit === '*' ? 'star' : digit;
        steps.push(`<nop><action><exec play_pcap_audio="/usr/share/sip-tester/dtmf_2833_${name}.pcap"/></action></nop>`, '<pause milliseconds="250"/>');
      } else {
        steps.push(`<send retrans="500">${CRLF_BLOCK(dialog('INFO', cseq++, ['Content-Type: application/dtmf-relay'], `Signal=${digit}\nDuration=160`))}</send>`);
        steps.push('<recv response="200" crlf="true"/>', '<pause milliseconds="150"/>');
      }
    }
  });
  if (p.hangupAfterMs !== undefined) {
    steps.push(`<pause milliseconds="${p.hangupAfterMs}"/>`);
    steps.push(`<send retrans="500">${CRLF_BLOCK(dialog('BYE', cseq++))}</send>`, '<recv response="200" crlf="true"/>');
  } else {
    steps.push(`<recv request="BYE" timeout="${p.byeTimeoutMs ?? 60_000}"/>`);
    steps.push(`<send>${CRLF_BLOCK(['SIP/2.0 200 OK', '[last_Via:]', '[last_From:]', '[last_To:]', '[last_Call-ID:]', '[last_CSeq:]', 'Content-Length: 0', ''])}</send>`);
  }
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="dial into a room">
  <send retrans="500">${CRLF_BLOCK([
    `INVITE sip:${p.to}@${p.carrier} SIP/2.0`,
    'Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]',
    `From: "Caller" <sip:${p.from}@[local_ip]:[local_port]>;tag=[pid]SIPpTag00[call_number]`,
    `To: <sip:${p.to}@${p.carrier}>`,
    'Call-ID: [call_id]',
    'CSeq: 1 INVITE',
    'Contact: <sip:caller@[local_ip]:[local_port]>',
    'Max-Forwards: 70',
    'Content-Type: application/sdp',
    'Content-Length: [len]',
    '',
    'v=0',
    'o=caller 1 1 IN IP4 127.0.0.1',
    's=-',
    'c=IN IP4 127.0.0.1',
    't=0 0',
    `m=audio ${sdpPort} RTP/AVP 0 101`,
    'a=rtpmap:0 PCMU/8000',
    'a=rtpmap:101 telephone-event/8000',
    'a=fmtp:101 0-15',
  ])}</send>
  <recv response="100" optional="true"/>
  <recv response="200" rtd="true" rrs="true"/>
  <send>${CRLF_BLOCK(dialog('ACK', 1))}</send>
  ${steps.join('\n  ')}
</scenario>
`;
}

/** Places the call: SIPp with the plan's scenario, sending to the carrier. */
export async function dialIn(p: CallerPlan, o: { mediaPort?: number } = {}): Promise<Sipp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-dial-in-'));
  const file = path.join(dir, 'caller.xml');
  await writeFile(file, callerScenario(p));
  const timeout = Math.ceil((p.waitMs + p.pins.length * 8_000 + (p.hangupAfterMs ?? p.byeTimeoutMs ?? 60_000)) / 1000) + 30;
  return startSipp({
    scenario: file,
    extraArgs: [p.carrier, '-timeout', `${timeout}s`, ...(p.media === 'sipp' && o.mediaPort ? ['-mp', String(o.mediaPort)] : [])],
  });
}

/** The caller's audio, on a socket of the test: what it receives (decoded, with when), and recorded speech it sends. */
export class PhoneMedia {
  readonly socket: Socket;
  port = 0;
  /** Where our RTP comes from: the gateway's stream (learned from its first packet). */
  remote: { address: string; port: number } | null = null;
  /** Each 20 ms frame received, decoded, with its arrival time. */
  readonly received: Array<{ at: number; pcm: Int16Array }> = [];
  private seq = 1;
  private ts = 0;
  private readonly ssrc = Math.floor(Math.random() * 0xffffffff);

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('message', (buf, from) => {
      const p = parseRtp(buf);
      if (!p) return;
      this.remote ??= { address: from.address, port: from.port };
      if (p.payloadType === 0) this.received.push({ at: Date.now(), pcm: decodeG711('PCMU', new Uint8Array(p.payload)) });
    });
  }

  static async open(): Promise<PhoneMedia> {
    const socket = createSocket('udp4');
    await new Promise<void>((ok) => socket.bind(0, '127.0.0.1', () => ok()));
    const m = new PhoneMedia(socket);
    m.port = socket.address().port;
    return m;
  }

  /** The loudness (RMS) of what was received since `since` (epoch ms), 0 for nothing. */
  levelSince(since: number): number {
    let sum = 0;
    let n = 0;
    for (const f of this.received) {
      if (f.at < since) continue;
      for (const v of f.pcm) sum += v * v;
      n += f.pcm.length;
    }
    return n === 0 ? 0 : Math.sqrt(sum / n);
  }

  /** Speaks `pcm` (8 kHz) as PCMU, 20 ms a packet at the pace of the audio, to the gateway's stream. */
  async speak(pcm: Int16Array): Promise<void> {
    const to = this.remote;
    if (!to) throw new Error('no RTP from the gateway yet: nowhere to send');
    const start = Date.now();
    for (let i = 0, k = 0; i < pcm.length; i += 160, k++) {
      const frame = new Int16Array(160);
      frame.set(pcm.subarray(i, Math.min(pcm.length, i + 160)));
      const header = Buffer.alloc(12);
      header[0] = 0x80;
      header[1] = 0;
      header.writeUInt16BE(this.seq++ & 0xffff, 2);
      header.writeUInt32BE(this.ts >>> 0, 4);
      header.writeUInt32BE(this.ssrc, 8);
      this.ts += 160;
      this.socket.send(Buffer.concat([header, Buffer.from(encodeG711('PCMU', frame))]), to.port, to.address);
      const due = start + (k + 1) * 20 - Date.now();
      if (due > 0) await new Promise((r) => setTimeout(r, due));
    }
  }

  close(): void {
    this.socket.close();
  }
}
