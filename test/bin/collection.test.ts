// npm run collection: every operation of openapi/openapi.json becomes a request of the Postman
// collection, each authenticated with the environment's apiKey against its baseUrl.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCollection } from '../../bin/collection.ts';
import { readOperations } from '../helpers/openapi-operations.ts';

type Item = { name: string; item?: Item[]; request?: { method: string;
  url: { raw?: string; host?: string[]; path?: string[] }; auth?: unknown } };

function requestsOf(items: Item[]): NonNullable<Item['request']>[] {
  return items.flatMap((item) => item.item ? requestsOf(item.item)
    : item.request ? [item.request] : []);
}

describe('the collection', () => {
  it('has a request for every operation, authenticated with {{apiKey}} at {{baseUrl}}',
    async () => {
      const folder = mkdtempSync(join(tmpdir(), 'etax-collection-'));
      const [collectionFile, environmentFile] = await writeCollection(folder);
      const collection = JSON.parse(readFileSync(collectionFile!, 'utf8')) as {
        item: Item[]; auth: { type: string; basic: { key: string; value: string }[] } };
      expect(collection.auth.type).toBe('basic');
      expect(collection.auth.basic).toEqual(expect.arrayContaining([
        expect.objectContaining({ key: 'username', value: '{{apiKey}}' }),
        expect.objectContaining({ key: 'password', value: '' })]));
      const requests = requestsOf(collection.item);
      // A path parameter is a `:name` segment, or `{{name}}` inside one such as `{{id}}:rotate`.
      const template = (path: string[]) => path.join('/')
        .replace(/(^|\/):(\w+)/g, '$1{$2}').replace(/\{\{(\w+)\}\}/g, '{$1}');
      const sent = new Set(requests.map((request) =>
        `${request.method} /${template(request.url.path ?? [])}`));
      const operations = readOperations();
      expect(operations.length).toBeGreaterThan(40);
      for (const operation of operations) {
        expect(sent, `${operation.method} ${operation.path}`)
          .toContain(`${operation.method} ${operation.path}`);
      }
      expect(requests.every((request) => request.url.host?.[0] === '{{baseUrl}}')).toBe(true);
      // No request overrides the collection's credentials with others.
      expect(requests.filter((request) => request.auth !== undefined && request.auth !== null))
        .toEqual([]);
      const environment = JSON.parse(readFileSync(environmentFile!, 'utf8')) as {
        values: { key: string }[] };
      expect(environment.values.map((value) => value.key)).toEqual(['baseUrl', 'apiKey']);
    });
});
