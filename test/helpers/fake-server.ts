import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A local HTTP server standing in for an outside service (a gateway, the tax authority, a
// webhook receiver): it reads each request's whole body and hands it, with the request, to the
// test's `answer`, which records what it needs and answers, or leaves the response hanging.

export type ReceivedRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  // The body as UTF-8 text.
  text: string;
};

export type FakeServer = {
  // http://127.0.0.1:<port>, without a trailing slash.
  origin: string;
  server: http.Server;
  // Drops every open connection, hanging ones included, then stops listening.
  close(): Promise<void>;
};

export async function startFakeServer(
  answer: (request: ReceivedRequest, response: http.ServerResponse) => void,
): Promise<FakeServer> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      answer({ method: request.method ?? '', url: request.url ?? '', headers: request.headers,
        text: Buffer.concat(chunks).toString('utf8') }, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// Answers with a status and a JSON text.
export function sendJson(response: http.ServerResponse, status: number, text: string) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(text);
}
