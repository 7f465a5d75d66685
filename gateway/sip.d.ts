// Types for the npm `sip` package (0.0.6, kirm/sip.js), which ships none.
// Only what gateway/ uses; the shapes follow sip.js's parser and stringifier
// (header names are lower-case keys, `via` is always an array, structured
// headers are parsed objects, any header may also be given as a raw string).

declare module 'sip' {
  namespace sip {
    type Params = Record<string, string | null>;

    /** A parsed SIP URI (sip.parseUri). */
    type Uri = {
      schema: string;
      user?: string;
      password?: string;
      host: string;
      port?: number;
      params: Params;
      headers: Record<string, string>;
    };

    /** A name-addr header value (To, From, Contact, Route, Record-Route). */
    type Aor = { name?: string; uri: string | Uri; params: Params };

    type Via = { version?: string; protocol?: string; host?: string; port?: number; params: Params };

    type CSeq = { seq: number; method: string };

    type Headers = {
      via?: Via[];
      to?: Aor | string;
      from?: Aor | string;
      'call-id'?: string;
      cseq?: CSeq | string;
      contact?: Aor[] | '*' | string;
      route?: Aor[] | string;
      'record-route'?: Aor[];
      'content-length'?: number;
      [name: string]: unknown;
    };

    type Message = {
      method?: string;
      uri?: string | Uri;
      status?: number;
      reason?: string;
      version?: string;
      headers: Headers;
      content?: string;
    };

    /** Where a message came from (or goes to). */
    type Remote = { protocol: string; address: string; port: number; local?: { address: string; port: number } };

    type Logger = {
      send?: (m: Message, target: Remote) => void;
      recv?: (m: Message, remote: Remote) => void;
      error?: (e: unknown) => void;
    };

    type Options = {
      address?: string;
      port?: number;
      hostname?: string;
      publicAddress?: string;
      udp?: boolean;
      tcp?: boolean;
      rport?: boolean;
      logger?: Logger;
      'max-forwards'?: number;
    };

    type Stack = {
      /** Sends a request (callback gets every response) or, for a response, hands it to its server transaction. */
      send(m: Message, callback?: (rs: Message) => void): void;
      destroy(): void;
      hostname(): string;
    };

    function create(options: Options, onRequest: (rq: Message, remote: Remote) => void): Stack;
    function makeResponse(rq: Message, status: number, reason?: string, extension?: { headers?: Headers; content?: string }): Message;
    function parseUri(s: string | Uri): Uri | undefined;
    function stringifyUri(uri: string | Uri): string;
    function parse(s: string | Buffer): Message | undefined;
    function stringify(m: Message): string;
    function copyMessage(m: Message, deep?: boolean): Message;
    function generateBranch(): string;
  }
  export = sip;
}

// The digest helpers of the same package (RFC 2617 / 3261 22: MD5, qop=auth).
declare module 'sip/digest.js' {
  /** The client's digest state: one nonce, its count, the cnonce; signRequest fills and advances it. */
  type DigestContext = {
    nonce?: string;
    nc?: number;
    cnonce?: string;
    qop?: string;
    realm?: string;
    proxy?: boolean;
    [k: string]: unknown;
  };
  type Credentials = { user: string; password: string; realm?: string };
  /**
   * Signs `rq` (Authorization, or Proxy-Authorization after a 407): from the
   * challenge in `rs` when given (a new nonce resets nc), else with the
   * context's nonce and the next nc. Mutates `ctx` and `rq.headers`.
   */
  function signRequest(ctx: DigestContext, rq: import('sip').Message, rs: import('sip').Message | null, creds: Credentials): DigestContext | null;
  const digest: { signRequest: typeof signRequest };
  export default digest;
  export type { DigestContext, Credentials };
}
