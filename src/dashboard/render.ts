import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

// Every dashboard response carries these headers: scripts, styles, images and fonts from this
// server only, no frames, no inline script or style, forms posting only here; pages are never
// stored by a cache (they hold account data).
export const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; " +
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

export function sendHtml(reply: FastifyReply, status: number, node: VNode, whole = true) {
  const html = renderToString(node);
  return reply.code(status).header('cache-control', 'no-store').header('vary', 'HX-Request')
    .type('text/html; charset=utf-8').send(whole ? `<!doctype html>${html}` : html);
}
