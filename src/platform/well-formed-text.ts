import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { firstLoneSurrogate, formatCodePoint } from '../domain/text.ts';
import { ApiError } from './errors.ts';

// Every string of every JSON body, names of members included, is text a person or a system
// meant: a lone surrogate in one (`"\ud800"`, which JSON allows and no character set encodes) is
// refused as 400 INVALID_REQUEST before any operation sees it, instead of failing where the text
// is stored, printed or sent on (docs/errors.md § Printable text).

type Found = { path: string; codePoint: number };

function memberPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/u.test(key) ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

// The first string holding a lone surrogate, in document order, with its path in the style of
// the validation messages (`body.items[0].name`). Walked with a stack of its own, not by
// recursion: a body may be nested deeper than the call stack goes.
function findLoneSurrogate(body: unknown): Found | null {
  const pending: { value: unknown; path: string }[] = [{ value: body, path: 'body' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value === 'string') {
      const codePoint = firstLoneSurrogate(value);
      if (codePoint !== null) return { path, codePoint };
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[index], path: `${path}[${index}]` });
      }
    } else if (typeof value === 'object' && value !== null) {
      const members = Object.entries(value);
      for (const [key] of members) {
        const codePoint = firstLoneSurrogate(key);
        if (codePoint !== null) return { path: `${path} (a member name)`, codePoint };
      }
      for (const [key, member] of members.reverse()) {
        pending.push({ value: member, path: memberPath(path, key) });
      }
    }
  }
  return null;
}

async function refuseLoneSurrogates(request: FastifyRequest) {
  const found = findLoneSurrogate(request.body);
  if (found === null) return;
  throw new ApiError('INVALID_REQUEST', `${found.path} holds a lone surrogate ` +
    `(${formatCodePoint(found.codePoint)}): half of a UTF-16 pair is not a character.`);
}

async function wellFormedTextPlugin(app: FastifyInstance) {
  app.addHook('preValidation', refuseLoneSurrogates);
}

export const wellFormedText = fp(wellFormedTextPlugin, { name: 'etax-well-formed-text' });
