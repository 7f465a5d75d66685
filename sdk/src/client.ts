// The client: `new Tolk(apiKey, { baseUrl })`, then one method per operation
// of api.md, grouped as its sections are (resources.ts).

import {
  Avatars, BalanceResource, Bookings, Calls, Events, EventTypes, MeResource, Meetings, Numbers, Rooms, Sessions, TestHelpers,
  Transcripts, UsageResource, Voices, WebhookEndpoints,
} from './resources.ts';
import type { RateLimit } from './response.ts';
import { Transport, type ClientOptions } from './transport.ts';
import { verify } from './webhooks.ts';

export class Tolk {
  /** Verifies a webhook request's Service-Signature and returns its event (webhooks.ts). */
  static readonly webhooks = { verify };
  readonly webhooks = { verify };

  readonly me: MeResource;
  readonly balance: BalanceResource;
  readonly usage: UsageResource;
  readonly rooms: Rooms;
  readonly meetings: Meetings;
  readonly eventTypes: EventTypes;
  readonly bookings: Bookings;
  readonly voices: Voices;
  readonly sessions: Sessions;
  readonly transcripts: Transcripts;
  readonly calls: Calls;
  readonly numbers: Numbers;
  readonly avatars: Avatars;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly testHelpers: TestHelpers;
  private readonly transport: Transport;

  constructor(apiKey: string, options: ClientOptions = {}) {
    const t = (this.transport = new Transport(apiKey, options));
    this.me = new MeResource(t);
    this.balance = new BalanceResource(t);
    this.usage = new UsageResource(t);
    this.rooms = new Rooms(t);
    this.meetings = new Meetings(t);
    this.eventTypes = new EventTypes(t);
    this.bookings = new Bookings(t);
    this.voices = new Voices(t);
    this.sessions = new Sessions(t);
    this.transcripts = new Transcripts(t);
    this.calls = new Calls(t);
    this.numbers = new Numbers(t);
    this.avatars = new Avatars(t);
    this.webhookEndpoints = new WebhookEndpoints(t);
    this.events = new Events(t);
    this.testHelpers = new TestHelpers(t);
  }

  /** The base address requests go to. */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** RateLimit-Limit, -Remaining and -Reset of the last answer (api.md section 8), or null before one came. */
  get rateLimit(): RateLimit | null {
    return this.transport.rateLimit;
  }
}
