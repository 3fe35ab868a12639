import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { firstLoneSurrogate, formatCodePoint } from '../domain/text.ts';
import { ApiError } from './errors.ts';

// Every string of every JSON body, names of members included, is text a person or a system
// meant: a lone surrogate in one (`"\ud800"`, which JSON allows and no character set encodes) is
// refused as 400 INVALID_REQUEST before any operation sees it, instead of failing where the text
// is stored, printed or sent on (docs/errors.md § Text).

type Found = { path: string; codePoint: number };

function memberPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/u.test(key) ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

// The first string holding a lone surrogate, depth first, with its path in the style of the
// validation messages (`body.items[0].name`).
function findLoneSurrogate(value: unknown, path: string): Found | null {
  if (typeof value === 'string') {
    const codePoint = firstLoneSurrogate(value);
    return codePoint === null ? null : { path, codePoint };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findLoneSurrogate(item, `${path}[${index}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      const keyPoint = firstLoneSurrogate(key);
      if (keyPoint !== null) return { path: `${path} (a member name)`, codePoint: keyPoint };
      const found = findLoneSurrogate(member, memberPath(path, key));
      if (found !== null) return found;
    }
  }
  return null;
}

async function refuseLoneSurrogates(request: FastifyRequest) {
  const found = findLoneSurrogate(request.body, 'body');
  if (found === null) return;
  throw new ApiError('INVALID_REQUEST', `${found.path} holds a lone surrogate ` +
    `(${formatCodePoint(found.codePoint)}): half of a UTF-16 pair is not a character.`);
}

async function wellFormedTextPlugin(app: FastifyInstance) {
  app.addHook('preValidation', refuseLoneSurrogates);
}

export const wellFormedText = fp(wellFormedTextPlugin, { name: 'etax-well-formed-text' });
