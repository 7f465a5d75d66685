// One method per operation of api.md, grouped as its sections are. Each only
// names its path, its input and what repeating it can do (transport.ts,
// Repeat); the types come from the OpenAPI document (types.ts).

import { list, type ListPromise } from './list.ts';
import { SessionListener, type ListenOptions } from './listen.ts';
import type { WithResponse } from './response.ts';
import type { RequestOptions, Transport } from './transport.ts';
import type { BodyOf, ItemOf, QueryOf, ResultOf } from './types.ts';

const enc = encodeURIComponent;
type R<T> = Promise<WithResponse<T>>;

/** What every group of operations holds: the transport its requests go through. */
abstract class Resource {
  protected readonly t: Transport;
  constructor(t: Transport) {
    this.t = t;
  }
}

/** GET /v1/me: who this credential is, its permissions and limits. */
export class MeResource extends Resource {
  retrieve(opts?: RequestOptions): R<ResultOf<'/v1/me', 'get'>> {
    return this.t.request({ method: 'GET', path: '/v1/me', repeat: 'safe' }, opts);
  }
}

/** GET /v1/balance: minutes left. */
export class BalanceResource extends Resource {
  retrieve(opts?: RequestOptions): R<ResultOf<'/v1/balance', 'get'>> {
    return this.t.request({ method: 'GET', path: '/v1/balance', repeat: 'safe' }, opts);
  }
}

/** GET /v1/usage: minutes and requests by day or by credential. */
export class UsageResource extends Resource {
  retrieve(query?: QueryOf<'/v1/usage', 'get'>, opts?: RequestOptions): R<ResultOf<'/v1/usage', 'get'>> {
    return this.t.request({ method: 'GET', path: '/v1/usage', query, repeat: 'safe' }, opts);
  }
}

export class Rooms extends Resource {
  /** GET /v1/rooms, newest first. */
  list(query?: QueryOf<'/v1/rooms', 'get'>, opts?: RequestOptions): ListPromise<ItemOf<'/v1/rooms', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/rooms', query, repeat: 'safe' }, opts);
  }
  /** POST /v1/rooms: an instant room. */
  create(body: BodyOf<'/v1/rooms', 'post'> = {}, opts?: RequestOptions): R<ResultOf<'/v1/rooms', 'post'>> {
    return this.t.request({ method: 'POST', path: '/v1/rooms', body, repeat: 'key' }, opts);
  }
  /** GET /v1/rooms/{id}. */
  retrieve(id: string, opts?: RequestOptions): R<ResultOf<'/v1/rooms/{id}', 'get'>> {
    return this.t.request({ method: 'GET', path: `/v1/rooms/${enc(id)}`, repeat: 'safe' }, opts);
  }
  /** DELETE /v1/rooms/{id}: ends the room for everyone (its agent sessions end too). */
  end(id: string, opts?: RequestOptions): R<ResultOf<'/v1/rooms/{id}', 'delete'>> {
    return this.t.request({ method: 'DELETE', path: `/v1/rooms/${enc(id)}`, repeat: 'safe' }, opts);
  }
  /** POST /v1/rooms/{id}/join-links: a link that opens the room for one person, name and languages prefilled. */
  createJoinLink(id: string, body: BodyOf<'/v1/rooms/{id}/join-links', 'post'> = {}, opts?: RequestOptions): R<ResultOf<'/v1/rooms/{id}/join-links', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/rooms/${enc(id)}/join-links`, body, repeat: 'once' }, opts);
  }
}

export class Meetings extends Resource {
  /** GET /v1/meetings, by start time. */
  list(query?: QueryOf<'/v1/meetings', 'get'>, opts?: RequestOptions): ListPromise<ItemOf<'/v1/meetings', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/meetings', query, repeat: 'safe' }, opts);
  }
  /** POST /v1/meetings: a scheduled room; invitees are e-mailed. */
  create(body: BodyOf<'/v1/meetings', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/meetings', 'post'>> {
    return this.t.request({ method: 'POST', path: '/v1/meetings', body, repeat: 'key' }, opts);
  }
  /** DELETE /v1/meetings/{id}: cancels it; invitees are told. */
  cancel(id: string, opts?: RequestOptions): R<ResultOf<'/v1/meetings/{id}', 'delete'>> {
    return this.t.request({ method: 'DELETE', path: `/v1/meetings/${enc(id)}`, repeat: 'safe' }, opts);
  }
}

export class EventTypes extends Resource {
  /** GET /v1/event-types: your booking links. */
  list(opts?: RequestOptions): ListPromise<ItemOf<'/v1/event-types', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/event-types', repeat: 'safe' }, opts);
  }
  /** GET /v1/event-types/{id}/slots: free start times. */
  slots(id: string, query?: QueryOf<'/v1/event-types/{id}/slots', 'get'>, opts?: RequestOptions): R<ResultOf<'/v1/event-types/{id}/slots', 'get'>> {
    return this.t.request({ method: 'GET', path: `/v1/event-types/${enc(id)}/slots`, query, repeat: 'safe' }, opts);
  }
}

export class Bookings extends Resource {
  /** POST /v1/bookings: books a slot for a guest (409 slot_taken when it was taken meanwhile). */
  create(body: BodyOf<'/v1/bookings', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/bookings', 'post'>> {
    return this.t.request({ method: 'POST', path: '/v1/bookings', body, repeat: 'key' }, opts);
  }
}

export class Voices extends Resource {
  /** GET /v1/voices. */
  list(opts?: RequestOptions): ListPromise<ItemOf<'/v1/voices', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/voices', repeat: 'safe' }, opts);
  }
  /** POST /v1/voices: a clone, awaiting the person's consent at `consent_url`. */
  create(body: BodyOf<'/v1/voices', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/voices', 'post'>> {
    return this.t.request({ method: 'POST', path: '/v1/voices', body, repeat: 'key' }, opts);
  }
  /** GET /v1/voices/catalog: generic voices, no consent needed. */
  catalog(opts?: RequestOptions): ListPromise<ItemOf<'/v1/voices/catalog', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/voices/catalog', repeat: 'safe' }, opts);
  }
  /** POST /v1/voices/generic: adds a catalog voice to yours (again: the same voice). */
  addGeneric(body: BodyOf<'/v1/voices/generic', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/voices/generic', 'post'>> {
    return this.t.request({ method: 'POST', path: '/v1/voices/generic', body, repeat: 'safe' }, opts);
  }
  /** GET /v1/voices/{id}, with its consent status. */
  retrieve(id: string, opts?: RequestOptions): R<ResultOf<'/v1/voices/{id}', 'get'>> {
    return this.t.request({ method: 'GET', path: `/v1/voices/${enc(id)}`, repeat: 'safe' }, opts);
  }
  /** DELETE /v1/voices/{id}: revokes a clone, removes a generic voice. */
  del(id: string, opts?: RequestOptions): R<ResultOf<'/v1/voices/{id}', 'delete'>> {
    return this.t.request({ method: 'DELETE', path: `/v1/voices/${enc(id)}`, repeat: 'safe' }, opts);
  }
}

export class Sessions extends Resource {
  /** POST /v1/rooms/{id}/agent-sessions: an AI agent joins the room. */
  join(roomId: string, body: BodyOf<'/v1/rooms/{id}/agent-sessions', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/rooms/{id}/agent-sessions', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/rooms/${enc(roomId)}/agent-sessions`, body, repeat: 'key' }, opts);
  }
  /** GET /v1/sessions/{id}. */
  retrieve(id: string, opts?: RequestOptions): R<ResultOf<'/v1/sessions/{id}', 'get'>> {
    return this.t.request({ method: 'GET', path: `/v1/sessions/${enc(id)}`, repeat: 'safe' }, opts);
  }
  /** POST /v1/sessions/{id}/say: the text is translated and spoken to each listener (202; progress comes as events). */
  say(id: string, body: BodyOf<'/v1/sessions/{id}/say', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/sessions/{id}/say', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/sessions/${enc(id)}/say`, body, repeat: 'once' }, opts);
  }
  /** GET /v1/sessions/{id}/events: one long-poll. `listen` does the loop. */
  events(id: string, query?: QueryOf<'/v1/sessions/{id}/events', 'get'>, opts?: RequestOptions): R<ResultOf<'/v1/sessions/{id}/events', 'get'>> {
    const wait = typeof query?.wait === 'number' ? query.wait : 0;
    // A long-poll's attempt may take its wait and then some.
    return this.t.request({ method: 'GET', path: `/v1/sessions/${enc(id)}/events`, query, repeat: 'safe' }, { timeout: (wait + 30) * 1000, ...opts });
  }
  /**
   * Every event of the session, as it comes: `for await (const e of tolk.sessions.listen(id))`.
   * Long-polls (wait 25 s) from `cursor` (default 0), keeps the cursor, reconnects after a
   * failure that may pass, and ends when the session does.
   */
  listen(id: string, o: ListenOptions = {}): SessionListener {
    return new SessionListener(this, id, o);
  }
  /** POST /v1/sessions/{id}/leave: the session ends. */
  leave(id: string, opts?: RequestOptions): R<ResultOf<'/v1/sessions/{id}/leave', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/sessions/${enc(id)}/leave`, repeat: 'once' }, opts);
  }
}

export class Transcripts extends Resource {
  /** GET /v1/transcripts. */
  list(query?: QueryOf<'/v1/transcripts', 'get'>, opts?: RequestOptions): ListPromise<ItemOf<'/v1/transcripts', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/transcripts', query, repeat: 'safe' }, opts);
  }
  /** GET /v1/transcripts/{id}, in `lang` when given. */
  retrieve(id: string, query?: QueryOf<'/v1/transcripts/{id}', 'get'>, opts?: RequestOptions): R<ResultOf<'/v1/transcripts/{id}', 'get'>> {
    return this.t.request({ method: 'GET', path: `/v1/transcripts/${enc(id)}`, query, repeat: 'safe' }, opts);
  }
}

export class Calls extends Resource {
  /** GET /v1/calls/quote: the destination, its minute factor and whether the purpose is allowed there. */
  quote(query: QueryOf<'/v1/calls/quote', 'get'>, opts?: RequestOptions): R<ResultOf<'/v1/calls/quote', 'get'>> {
    return this.t.request({ method: 'GET', path: '/v1/calls/quote', query, repeat: 'safe' }, opts);
  }
  /** POST /v1/calls: places a translated call; the agent always says it is an AI. */
  create(body: BodyOf<'/v1/calls', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/calls', 'post'>> {
    return this.t.request({ method: 'POST', path: '/v1/calls', body, repeat: 'key' }, opts);
  }
  /** GET /v1/calls, newest first. */
  list(opts?: RequestOptions): ListPromise<ItemOf<'/v1/calls', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/calls', repeat: 'safe' }, opts);
  }
  /** GET /v1/calls/{id}. */
  retrieve(id: string, opts?: RequestOptions): R<ResultOf<'/v1/calls/{id}', 'get'>> {
    return this.t.request({ method: 'GET', path: `/v1/calls/${enc(id)}`, repeat: 'safe' }, opts);
  }
  /** POST /v1/calls/{id}/hangup: idempotent (an ended call comes back as it is). */
  hangup(id: string, opts?: RequestOptions): R<ResultOf<'/v1/calls/{id}/hangup', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/calls/${enc(id)}/hangup`, repeat: 'safe' }, opts);
  }
}

export class Numbers extends Resource {
  /** GET /v1/numbers: your own numbers first, the shared one last. */
  list(query?: QueryOf<'/v1/numbers', 'get'>, opts?: RequestOptions): ListPromise<ItemOf<'/v1/numbers', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/numbers', query, repeat: 'safe' }, opts);
  }
}

export class Avatars extends Resource {
  /** GET /v1/avatars. */
  list(opts?: RequestOptions): ListPromise<ItemOf<'/v1/avatars', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/avatars', repeat: 'safe' }, opts);
  }
}

export class WebhookEndpoints extends Resource {
  /** GET /v1/webhook-endpoints. */
  list(opts?: RequestOptions): ListPromise<ItemOf<'/v1/webhook-endpoints', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/webhook-endpoints', repeat: 'safe' }, opts);
  }
  /** POST /v1/webhook-endpoints: the answer's `secret` is shown this once. */
  create(body: BodyOf<'/v1/webhook-endpoints', 'post'>, opts?: RequestOptions): R<ResultOf<'/v1/webhook-endpoints', 'post'>> {
    return this.t.request({ method: 'POST', path: '/v1/webhook-endpoints', body, repeat: 'once' }, opts);
  }
  /** DELETE /v1/webhook-endpoints/{id}. */
  del(id: string, opts?: RequestOptions): R<ResultOf<'/v1/webhook-endpoints/{id}', 'delete'>> {
    return this.t.request({ method: 'DELETE', path: `/v1/webhook-endpoints/${enc(id)}`, repeat: 'safe' }, opts);
  }
  /** POST /v1/webhook-endpoints/{id}/rotate-secret: a new secret, shown once; both sign for 24 hours. */
  rotateSecret(id: string, opts?: RequestOptions): R<ResultOf<'/v1/webhook-endpoints/{id}/rotate-secret', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/webhook-endpoints/${enc(id)}/rotate-secret`, repeat: 'once' }, opts);
  }
  /** POST /v1/webhook-endpoints/{id}/test: sends a signed test event now. */
  test(id: string, body: BodyOf<'/v1/webhook-endpoints/{id}/test', 'post'> = {}, opts?: RequestOptions): R<ResultOf<'/v1/webhook-endpoints/{id}/test', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/webhook-endpoints/${enc(id)}/test`, body, repeat: 'once' }, opts);
  }
  /** GET /v1/webhook-endpoints/{id}/deliveries, newest first. */
  listDeliveries(id: string, query?: QueryOf<'/v1/webhook-endpoints/{id}/deliveries', 'get'>, opts?: RequestOptions): ListPromise<ItemOf<'/v1/webhook-endpoints/{id}/deliveries', 'get'>> {
    return list(this.t, { method: 'GET', path: `/v1/webhook-endpoints/${enc(id)}/deliveries`, query, repeat: 'safe' }, opts);
  }
  /** POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend: sends that event again now. */
  resendDelivery(id: string, deliveryId: string, opts?: RequestOptions): R<ResultOf<'/v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend', 'post'>> {
    return this.t.request({ method: 'POST', path: `/v1/webhook-endpoints/${enc(id)}/deliveries/${enc(deliveryId)}/resend`, repeat: 'once' }, opts);
  }
}

export class Events extends Resource {
  /** GET /v1/events: the last 30 days, newest first, to reconcile what a webhook missed. */
  list(query?: QueryOf<'/v1/events', 'get'>, opts?: RequestOptions): ListPromise<ItemOf<'/v1/events', 'get'>> {
    return list(this.t, { method: 'GET', path: '/v1/events', query, repeat: 'safe' }, opts);
  }
}

/** Test mode only: what a person would do, done by the API. */
export class TestHelpers {
  readonly voices: { completeConsent: (id: string, opts?: RequestOptions) => R<ResultOf<'/v1/test-helpers/voices/{id}/complete-consent', 'post'>> };
  constructor(t: Transport) {
    this.voices = {
      /** POST /v1/test-helpers/voices/{id}/complete-consent: the person consents and records, in test mode. */
      completeConsent: (id, opts) => t.request({ method: 'POST', path: `/v1/test-helpers/voices/${enc(id)}/complete-consent`, repeat: 'once' }, opts),
    };
  }
}
