import type { FastifyInstance } from 'fastify';
import scalar from '@scalar/fastify-api-reference';
import { ERROR_CATALOGUE } from '../../errors.ts';
import { finishOpenApi } from '../openapi.ts';
import { docsSecurityHeaders } from '../docs.ts';

/**
 * The reference and its documents (/docs, /v1/openapi.json, /docs/errors) in
 * a context of their own, not wrapped in fastify-plugin: its onSend hook gives
 * every answer there a Content-Security-Policy, X-Frame-Options and nosniff
 * (http/docs.ts), and no other answer.
 */
export default async function reference(docs: FastifyInstance, { publicBaseUrl }: { publicBaseUrl: () => string }): Promise<void> {
  let openapi: unknown = null;
  docs.addHook('onSend', docsSecurityHeaders(publicBaseUrl));
  docs.get('/v1/openapi.json', { schema: { hide: true } }, async () => {
    openapi ??= finishOpenApi(docs.swagger() as never);
    return openapi;
  });
  docs.get('/docs/errors', { schema: { hide: true } }, async () => ({ data: ERROR_CATALOGUE }));
  // The reference page works offline and shows only our API: its script comes
  // from this server (the plugin serves it at /docs/js/scalar.js; a `cdn` or
  // `bundle` option would load it from jsDelivr instead), system fonts instead
  // of fonts.scalar.com, and none of the renderer vendor's services: its AI
  // agent, MCP, developer tools (Share, Deploy), "Open API Client"
  // (client.scalar.com). No `proxyUrl`: "Test Request" goes straight to the API.
  // test/docs/docs-page.test.ts opens it in Chromium with the network cut.
  await docs.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      url: '/v1/openapi.json',
      title: 'Tolk API reference',
      pageTitle: 'Tolk API reference',
      withDefaultFonts: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: 'never',
      hideClientButton: true,
      // On by default in the configuration schema (unused by the bundle today).
      telemetry: false,
      customCss: [
        ':root {',
        '  --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji";',
        '  --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Monaco, Consolas, "Liberation Mono", "Courier New", monospace;',
        '}',
        // The sidebar's "Powered by Scalar" link has no option of its own.
        'a[href^="https://www.scalar.com"] { display: none !important; }',
      ].join('\n'),
    },
  });
}
