// Finishing touches the zod-generated document cannot express on its own.

type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };
type Operation = {
  responses?: Record<string, { description?: string; content?: Record<string, unknown> }>;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
};

const PROBLEM_REF = { schema: { $ref: '#/components/schemas/Problem' } };

/** Error responses are application/problem+json (api.md section 7). */
export function finishOpenApi<T extends Doc>(doc: T): T {
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops)) {
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        if (res.description === 'Default Response') res.description = status === '201' ? 'Created' : status === '202' ? 'Accepted' : 'OK';
        if (/^[45]/.test(status)) {
          res.description = status.startsWith('4')
            ? 'Client error (problem+json; branch on `code`)'
            : 'Server error (problem+json); retry with backoff';
          res.content = { 'application/problem+json': PROBLEM_REF };
        }
      }
    }
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
