// Names for the API's shapes, all taken from openapi.ts (generated from the
// served /v1/openapi.json by openapi-typescript, never edited by hand): a field
// that changes there changes here, and the client's compile breaks where it is used.

import type { components, paths } from './openapi.ts';

type Schemas = components['schemas'];

export type Problem = Schemas['Problem'];
export type Me = Schemas['Me'];
export type Balance = Schemas['Balance'];
export type Usage = Schemas['Usage'];
export type Room = Schemas['Room'];
export type JoinLink = Schemas['JoinLink'];
export type EventType = Schemas['EventType'];
export type Slots = Schemas['Slots'];
export type Booking = Schemas['Booking'];
export type Call = Schemas['Call'];
export type CallQuote = Schemas['CallQuote'];
export type PhoneNumber = Schemas['PhoneNumber'];
export type Avatar = Schemas['Avatar'];
export type Voice = Schemas['Voice'];
export type CatalogVoice = Schemas['CatalogVoice'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type TestDelivery = Schemas['TestDelivery'];
export type EventLogEntry = Schemas['EventLogEntry'];
export type Session = Schemas['Session'];
export type SessionEvent = Schemas['SessionEvent'];
export type TranscriptSummary = Schemas['TranscriptSummary'];
export type Transcript = Schemas['Transcript'];

type Method = 'get' | 'post' | 'delete';
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type Json<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;

/** The query parameters an operation takes. */
export type QueryOf<P extends keyof paths, M extends Method> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The body of an operation's successful answer (200, 201 or 202). */
export type ResultOf<P extends keyof paths, M extends Method> = {
  [K in keyof Op<P, M>['responses']]: K extends 200 | 201 | 202 ? Json<Op<P, M>['responses'][K]> : never;
}[keyof Op<P, M>['responses']];

/** The items of a list operation's `data`. */
export type ItemOf<P extends keyof paths, M extends Method> = ResultOf<P, M> extends { data: Array<infer T> } ? T : never;
