// While the server closes, requests in flight finish normally and a request that still arrives
// on an open connection (here: pipelined behind a slow one) is answered 503 SERVICE_UNAVAILABLE
// in our error shape with a Trace-Id, and the connection is closed. Method: the slow request
// holds until the test lets it go, and each step waits for the server to signal the one before
// (the handler entered, the shutdown hook ran, the second request arrived), not for time.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponses, PLATFORM_ERRORS } from '../../src/platform/error-responses.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;

// A promise with its resolver: one step's signal to the next.
function signal() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => { resolve = done; });
  return { promise, resolve };
}
const slowEntered = signal();
const slowReleased = signal();
const closeBegan = signal();

beforeAll(async () => {
  app = await createTestApp({
    extraRoutes: async (v1) => {
      v1.get('/slow', {
        config: { operation: 'points.retrieve' },
        schema: {
          response: {
            200: { type: 'object', title: 'Slow', description: 'Finished.',
              properties: { finished: { type: 'boolean' } } },
            ...errorResponses(...PLATFORM_ERRORS),
          },
        },
      }, async () => {
        // Keeps the request in flight until the test has started closing the server.
        slowEntered.resolve();
        await slowReleased.promise;
        return { finished: true };
      });
      // The server's own preClose hooks are the root's and run before this child's, so when this
      // one runs the shutdown plugin already answers new requests with 503.
      v1.addHook('preClose', async () => closeBegan.resolve());
    },
  });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.database.drop();
});

// A raw HTTP/1.1 connection, so the test controls when each request is written on it.
function openConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let received = '';
  socket.on('data', (chunk) => { received += chunk; });
  // Bounded: a server that never closes the connection fails the test instead of hanging it.
  const timer = setTimeout(() => socket.destroy(), 5_000);
  const closed = new Promise<string>((resolve) => {
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
  return { write: (text: string) => socket.write(text), closed };
}

describe('shutting down', () => {
  it('finishes requests in flight and answers later ones with 503 in the error shape', async () => {
    const { keys } = await app.createAccount();
    const { port } = app.server.server.address() as AddressInfo;
    const request = (path: string) =>
      `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basicAuth(keys.test)}\r\n\r\n`;
    // Node emits a pipelined request as soon as it is read, and answers it after the one before.
    const pointsArrived = signal();
    app.server.server.on('request', (incoming: { url?: string }) => {
      if (incoming.url === '/v1/points') pointsArrived.resolve();
    });
    const connection = openConnection(port);
    connection.write(request('/v1/slow'));
    await slowEntered.promise;
    const closing = app.close();
    await closeBegan.promise;
    connection.write(request('/v1/points'));
    await pointsArrived.promise;
    slowReleased.resolve();
    const received = await connection.closed;
    await closing;

    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(responses[0]).toContain('{"finished":true}');
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503 /);
    expect(responses[1]).toMatch(/connection: close/i);
    const traceId = /trace-id: ([0-9a-f]{32})/i.exec(responses[1]!)?.[1];
    const body = JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('shutting down'),
      traceId,
    });
  });
});
