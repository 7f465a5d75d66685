import { ERROR_STATUS, NOT_ANSWERED_YET, type ErrorCode } from '../errors.ts';

// Finishing touches the zod-generated document cannot express on its own.

type Doc = {
  info?: { description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown> };
};
type ResponseObject = { $ref?: string; description?: string; content?: Record<string, unknown>; headers?: Record<string, unknown> };
type Operation = {
  description?: string;
  'x-permission'?: string;
  responses?: Record<string, ResponseObject>;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { type?: string; required?: string[] } }> };
};

const PROBLEM_REF = { schema: { $ref: '#/components/schemas/Problem' } };

const REASONS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type', 429: 'Too Many Requests', 500: 'Internal Server Error',
  501: 'Not Implemented', 503: 'Service Unavailable',
};

/**
 * Codes an operation answers because of what its use case does, by
 * "METHOD /path" (finishOpenApi fails on a name the document lacks). The codes
 * every operation of its kind answers are added by errorCodesOf, and
 * `501 not_available_yet` wherever the operation's description says it.
 */
const OPERATION_ERRORS: Record<string, ErrorCode[]> = {
  'POST /v1/rooms': ['idempotency_mismatch', 'idempotency_in_progress', 'language_not_allowed'],
  'GET /v1/rooms/{id}': ['not_found'],
  'DELETE /v1/rooms/{id}': ['not_found'],
  'POST /v1/rooms/{id}/join-links': ['not_found', 'conflict', 'language_not_allowed'],
  'DELETE /v1/webhook-endpoints/{id}': ['not_found'],
  'POST /v1/webhook-endpoints/{id}/rotate-secret': ['not_found'],
  'POST /v1/webhook-endpoints/{id}/test': ['not_found'],
  'GET /v1/webhook-endpoints/{id}/deliveries': ['not_found'],
  'POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend': ['not_found'],
  'POST /v1/rooms/{id}/agent-sessions': [
    'not_found', 'conflict', 'idempotency_mismatch', 'idempotency_in_progress', 'language_not_allowed', 'voice_not_allowed', 'too_many_sessions',
  ],
  'GET /v1/sessions/{id}': ['not_found'],
  'POST /v1/sessions/{id}/say': ['not_found', 'conflict', 'session_ended', 'spend_limit_reached', 'language_not_allowed'],
  'GET /v1/sessions/{id}/events': ['not_found', 'session_ended', 'spend_limit_reached'],
  'POST /v1/sessions/{id}/leave': ['not_found', 'session_ended'],
  'GET /v1/transcripts/{id}': ['not_found', 'language_not_allowed'],
  'POST /v1/meetings': ['idempotency_mismatch', 'idempotency_in_progress', 'language_not_allowed'],
  'DELETE /v1/meetings/{id}': ['not_found', 'conflict'],
  'GET /v1/event-types/{id}/slots': ['not_found'],
  'POST /v1/bookings': ['idempotency_mismatch', 'idempotency_in_progress', 'language_not_allowed', 'not_found', 'slot_taken', 'booking_unavailable'],
  'POST /v1/voices': ['idempotency_mismatch', 'idempotency_in_progress', 'language_not_allowed'],
  'POST /v1/voices/generic': ['voice_not_allowed', 'not_found'],
  'GET /v1/voices/{id}': ['not_found'],
  'DELETE /v1/voices/{id}': ['not_found', 'voice_not_allowed'],
  'POST /v1/test-helpers/voices/{id}/complete-consent': ['not_found', 'conflict'],
  'GET /v1/calls/quote': ['destination_not_allowed', 'number_not_allowed'],
  'POST /v1/calls': [
    'idempotency_mismatch', 'idempotency_in_progress', 'destination_not_allowed', 'number_not_allowed', 'language_not_allowed',
    'voice_not_allowed', 'spend_limit_reached',
  ],
  'GET /v1/calls/{id}': ['not_found'],
  'POST /v1/calls/{id}/hangup': ['not_found'],
};

/** Every code one operation answers: those of every operation, of its method and inputs, and its own. */
function errorCodesOf(key: string, method: string, op: Operation): ErrorCode[] {
  const codes: ErrorCode[] = [
    // The input checks of every route; authentication, the key's rate limits and its organization (http/auth.ts).
    'invalid_request', 'unauthorized', 'org_blocked', 'org_suspended', 'paid_plan_required', 'ip_not_allowed', 'rate_limited', 'test_daily_limit',
    // Any failure of ours; the database unreachable (http/error-handler.ts).
    'internal_error', 'api_disabled',
  ];
  if (op['x-permission']) codes.push('insufficient_scope');
  if (method !== 'get') codes.push('needs_review', 'payload_too_large', 'unsupported_media_type');
  if (op.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key')) codes.push('idempotency_key_required');
  if (/\b501 not_available_yet\b/.test(op.description ?? '')) codes.push('not_available_yet');
  codes.push(...(OPERATION_ERRORS[key] ?? []));
  return [...new Set(codes)].filter((c) => !NOT_ANSWERED_YET.has(c));
}

function problemResponse(status: number, codes: ErrorCode[], extra: Pick<ResponseObject, 'headers'> = {}): ResponseObject {
  return {
    description: `${REASONS[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\``).join(', ')} (problem+json; branch on \`code\`)`,
    ...extra,
    content: {
      'application/problem+json': {
        schema: { allOf: [PROBLEM_REF.schema, { properties: { status: { const: status }, code: { enum: codes } } }] },
      },
    },
  };
}

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } };

/**
 * The error responses of one operation, by status. A status with one code
 * refers to components.responses under the code's name (added to `shared`).
 */
function errorResponsesOf(key: string, method: string, op: Operation, shared: Record<string, ResponseObject>): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(key, method, op)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const out: Record<string, ResponseObject> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status)!;
    const res = problemResponse(status, codes, status === 429 ? { headers: RETRY_AFTER } : {});
    if (codes.length > 1) {
      out[String(status)] = res;
    } else {
      shared[codes[0]!] ??= res;
      out[String(status)] = { $ref: `#/components/responses/${codes[0]}` };
    }
  }
  return out;
}

/** Error responses are application/problem+json (api.md section 7), one per status, naming their codes. */
export function finishOpenApi<T extends Doc>(doc: T): T {
  const unused = new Set(Object.keys(OPERATION_ERRORS));
  // Not an operation's: any path answers it to a method it does not accept.
  const shared: Record<string, ResponseObject> = {
    method_not_allowed: problemResponse(405, ['method_not_allowed'], {
      headers: { Allow: { description: 'The methods the path accepts', schema: { type: 'string' } } },
    }),
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      // @fastify/swagger marks every body required; one with no required field is
      // optionalBody() (http/schemas.ts): sending none is the same as sending {}.
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (op.requestBody && body?.type === 'object' && !body.required?.length) op.requestBody.required = false;
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        if (res.description === 'Default Response') res.description = status === '201' ? 'Created' : status === '202' ? 'Accepted' : 'OK';
        if (/^[45]/.test(status)) delete op.responses![status];
      }
      const key = `${method.toUpperCase()} ${path}`;
      unused.delete(key);
      op.responses = { ...op.responses, ...errorResponsesOf(key, method, op, shared) };
    }
  }
  if (unused.size) throw new Error(`OPERATION_ERRORS names operations the document does not have: ${[...unused].join(', ')}`);
  (doc.components ??= {}).responses = { ...doc.components.responses, ...shared };
  if (doc.info) {
    doc.info.description =
      `${doc.info.description ?? ''} Each operation lists the error codes it answers; every code is described at /docs/errors. ` +
      'A method a path does not accept answers 405 method_not_allowed with an Allow header (components.responses.method_not_allowed).';
  }
  // Request bodies are inlined, so the generated `…Input` copies of response
  // schemas are referenced by nothing; drop them from the components.
  const schemas = doc.components?.schemas;
  if (schemas) {
    const text = JSON.stringify(doc.paths);
    for (const name of Object.keys(schemas)) {
      if (name.endsWith('Input') && !text.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
    }
  }
  return doc;
}
