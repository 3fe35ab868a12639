import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireServicesInCi } from './integration-requirements.ts';

describe('the integration project\'s requirements', () => {
  let listening: net.Server;
  let open: string;
  let closed: string;

  beforeAll(async () => {
    listening = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    open = `127.0.0.1:${(listening.address() as net.AddressInfo).port}`;
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closed = `127.0.0.1:${(probe.address() as net.AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => listening.close(resolve));
  });

  it('asks for nothing without CI', async () => {
    await expect(requireServicesInCi({})).resolves.toBeUndefined();
  });

  it('fails in CI when either URL is missing or does not answer', async () => {
    await expect(requireServicesInCi({ CI: 'true', REDIS_URL: `redis://${open}` }))
      .rejects.toThrow(/DATABASE_URL/);
    await expect(requireServicesInCi({ CI: 'true', DATABASE_URL: `postgres://u@${open}/t` }))
      .rejects.toThrow(/REDIS_URL/);
    await expect(requireServicesInCi({ CI: 'true', DATABASE_URL: `postgres://u@${closed}/t`,
      REDIS_URL: `redis://${open}` })).rejects.toThrow(/does not answer/);
  });

  it('passes in CI when both answer', async () => {
    await expect(requireServicesInCi({ CI: 'true', DATABASE_URL: `postgres://u@${open}/t`,
      REDIS_URL: `redis://${open}` })).resolves.toBeUndefined();
  });
});
