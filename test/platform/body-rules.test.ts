// A route's config.body (src/platform/bodyless.ts) installs the hook that reads a request without
// a body, and a rule that contradicts the route's body schema stops the boot.
import type { RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { applyBodyRule } from '../../src/platform/bodyless.ts';

function route(body: 'none' | 'optional' | undefined, bodySchema?: object): RouteOptions {
  return {
    method: 'POST', url: '/v1/probe', handler: async () => ({}),
    config: { body },
    schema: bodySchema ? { body: bodySchema } : {},
  } as RouteOptions;
}

describe('applyBodyRule', () => {
  it('leaves a route without a rule as it is', () => {
    const options = route(undefined, { type: 'object' });
    applyBodyRule(options);
    expect(options.preValidation).toBeUndefined();
  });

  it('puts the rule\'s hook before the route\'s own', () => {
    const own = async () => {};
    const options = { ...route('none'), preValidation: own };
    applyBodyRule(options);
    expect(options.preValidation).toHaveLength(2);
    expect((options.preValidation as unknown as unknown[])[1]).toBe(own);
  });

  it('stops the boot when the rule contradicts the body schema', () => {
    expect(() => applyBodyRule(route('none', { type: 'object' })))
      .toThrow(/POST \/v1\/probe: config.body 'none' with a body schema/);
    expect(() => applyBodyRule(route('optional')))
      .toThrow(/POST \/v1\/probe: config.body 'optional' without a body schema/);
  });

  it('reads an absent optional body as {}, and refuses data sent to an operation without one',
    async () => {
      const optional = route('optional', { type: 'object' });
      applyBodyRule(optional);
      const [readAsEmpty] = optional.preValidation as Array<(request: object) => Promise<void>>;
      const request: { body?: unknown } = {};
      await readAsEmpty!(request);
      expect(request.body).toEqual({});

      const none = route('none');
      applyBodyRule(none);
      const [refuse] = none.preValidation as Array<(request: object) => Promise<void>>;
      await expect(refuse!({ body: {} })).resolves.toBeUndefined();
      await expect(refuse!({ body: undefined })).resolves.toBeUndefined();
      await expect(refuse!({ body: { reason: 'x' } })).rejects.toThrow(/takes no body/);
      await expect(refuse!({ body: [] })).rejects.toThrow(/takes no body/);
    });
});
