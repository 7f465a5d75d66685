import type { CallEvent } from '../../machines/call.ts';
import type { DialogEvent } from '../../gateway/signaling.ts';

// What SIP's answers mean for a call (operator.md: outcomes from a real
// peer's answers): the call machine's event, and the final answer it records.

/** What a dialog event means for the call. */
export function callEventOf(e: DialogEvent): CallEvent {
  switch (e.type) {
    case 'ringing': return { type: 'RINGING' };
    case 'answered': return e.voicemail ? { type: 'VOICEMAIL' } : { type: 'ANSWERED' };
    case 'remote_hangup': return { type: 'REMOTE_HANGUP' };
    case 'no_media': return { type: 'FAILED', reason: 'no_media' };
    case 'media_timeout': return { type: 'MEDIA_TIMEOUT' };
    case 'ring_timeout': return { type: 'NO_ANSWER' };
    case 'no_response': return { type: 'FAILED', reason: 'failed' };
    case 'rejected':
      if ([486, 600, 603].includes(e.status)) return { type: 'BUSY' };
      // 487: the INVITE was canceled, which only we do (hangup, ring timeout): nobody answered.
      if ([480, 408, 487].includes(e.status)) return { type: 'NO_ANSWER' };
      return { type: 'FAILED', reason: 'failed' };
  }
}

/** The final SIP answer an event reports (a call records it: sip_code, sip_reason), if it is one. */
export function sipAnswerOf(e: DialogEvent): { code: number; reason: string } | undefined {
  switch (e.type) {
    case 'answered': return { code: e.status, reason: e.reason ?? 'OK' };
    case 'no_media': return { code: e.status, reason: e.reason };
    case 'rejected': return { code: e.status, reason: e.reason };
    // We CANCELed it: the INVITE's final answer is the 487 the far end owes us (RFC 3261 9.2).
    case 'ring_timeout': return { code: 487, reason: 'Request Terminated' };
    default: return undefined;
  }
}
