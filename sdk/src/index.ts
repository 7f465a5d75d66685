// @tolk/client: the TypeScript client of Tolk's API. ESM, no dependencies
// beyond the platform's fetch and Web Crypto: Node 20+, Deno, browsers.

export { Tolk } from './client.ts';
export {
  TolkError, TolkInvalidRequestError, TolkAuthenticationError, TolkPaymentRequiredError, TolkPermissionError, TolkNotFoundError,
  TolkConflictError, TolkRateLimitError, TolkNotAvailableError, TolkServerError, TolkConnectionError, TolkSignatureVerificationError,
} from './errors.ts';
export type { ClientOptions, RequestOptions } from './transport.ts';
export type { List, ListPromise } from './list.ts';
export type { SessionListener, ListenOptions } from './listen.ts';
export type { RateLimit, ResponseInfo, WithResponse } from './response.ts';
export type { WebhookEvent, VerifyOptions } from './webhooks.ts';
export type * from './types.ts';
export type { paths, components } from './openapi.ts';
