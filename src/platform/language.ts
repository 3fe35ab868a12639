import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

// The languages error messages are written in. English unless the request's Accept-Language
// prefers Korean (`ko`, `ko-KR`, or Korean with a higher q than English); a header naming
// neither, or none at all, gets English.
const MESSAGE_LANGUAGES = ['en', 'ko'] as const;
export type MessageLanguage = (typeof MESSAGE_LANGUAGES)[number];

export function preferredLanguage(request: FastifyRequest): MessageLanguage {
  const header = request.headers['accept-language'];
  if (header === undefined || header === '') return 'en';
  const chosen = new Negotiator({ headers: { 'accept-language': header } })
    .language([...MESSAGE_LANGUAGES]);
  return chosen === 'ko' ? 'ko' : 'en';
}
