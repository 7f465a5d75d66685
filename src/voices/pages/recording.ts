import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, invalid } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { AudioProbeError, probeAudio } from '../probe.ts';
import { checkSaid } from '../said.ts';
import { admitRecording, consentWithRecording, MAX_RECORDING_BYTES, MAX_RECORDING_MS, MIN_RECORDING_MS, MIN_SOUND_MS, voiceByConsentToken } from '../consent.ts';
import { consentRoutes, hide } from './view.ts';

// POST /consent/:token/recording: step 3, the recording (the MediaRecorder's bytes, audio/webm,
// audio/ogg or audio/mp4, header X-Consent-Secret from step 2): probed, checked, then the voice is
// `processing` (202).

const RECORDING_TYPES = ['audio/webm', 'audio/ogg', 'audio/mp4'];

function secretOf(req: FastifyRequest): string {
  const v = req.headers['x-consent-secret'];
  const secret = Array.isArray(v) ? v[0] : v;
  if (!secret || !/^[A-Za-z0-9_-]{16,64}$/.test(secret)) throw new ApiError('unauthorized', 'code: confirm your e-mail address with a code first');
  return secret;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export default function register(app: FastifyInstance, s: Services) {
  consentRoutes(app, s, (c) => c.post<{ Params: { token: string } }>('/consent/:token/recording', { ...hide, bodyLimit: MAX_RECORDING_BYTES }, async (req, reply) => {
    const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!RECORDING_TYPES.includes(type) || !Buffer.isBuffer(req.body)) {
      throw new ApiError('unsupported_media_type', 'recording: send the audio as the browser recorded it (audio/webm, audio/ogg or audio/mp4)');
    }
    const secret = secretOf(req);
    await admitRecording(s, req.params.token, secret);
    const audio = req.body;
    let m;
    try {
      m = await probeAudio(audio);
    } catch (err) {
      if (err instanceof AudioProbeError) throw invalid('recording', 'this is not audio we can read; record again');
      throw err;
    }
    if (m.durationMs < MIN_RECORDING_MS) throw invalid('recording', `${seconds(m.durationMs)} long; record at least ${MIN_RECORDING_MS / 1000} s (the whole sentence)`);
    if (m.durationMs > MAX_RECORDING_MS + 1000) throw invalid('recording', `${seconds(m.durationMs)} long; at most ${MAX_RECORDING_MS / 1000} s`);
    if (m.soundMs < MIN_SOUND_MS) throw invalid('recording', 'we heard only silence; check that the right microphone is on and not muted, and record again');
    // Where a recognizer hears the sentence's language, the recording must say it (voices/said.ts).
    const v = await voiceByConsentToken(s.pool, req.params.token);
    const said = v ? await checkSaid(s, m.pcm, m.sampleRate, v.language) : { checked: false as const };
    if (said.checked && !said.ok) {
      throw invalid('recording', 'we could not hear the consent sentence in it; read the whole sentence aloud, clearly, and record again');
    }
    const r = await consentWithRecording(s, req.params.token, secret, { contentType: type, audio, durationMs: m.durationMs, soundMs: m.soundMs }, {
      ip: req.ip ?? null, userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
    });
    return reply.code(202).send({ status: r.status, duration_ms: m.durationMs });
  }));
}
