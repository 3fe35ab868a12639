import net from 'node:net';

// A TCP proxy in front of PostgreSQL that a test can cut and reopen, to make the database
// unreachable for a server without stopping the real one (which other tests share). Cutting
// closes the listener, so new connections are refused, and destroys every open connection, so
// the server's pooled connections fail as they would when the database went away.

export type CuttableProxy = {
  // Starts listening (again) on the proxy's port; the first open picks it unless one was given.
  open(): Promise<number>;
  cut(): Promise<void>;
};

export function createCuttableProxy(
  target: { host: string; port: number },
  options: { port?: number } = {},
): CuttableProxy {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = options.port ?? 0;
  function open(): Promise<number> {
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    return new Promise((resolve) => server!.listen(port, '127.0.0.1', () => {
      port = (server!.address() as net.AddressInfo).port;
      resolve(port);
    }));
  }
  async function cut() {
    const closed = new Promise((resolve) => server!.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  }
  return { open, cut };
}

// The URL of `databaseUrl` with its host and port replaced by the proxy's.
export function proxiedUrl(databaseUrl: string, proxyPort: number): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxyPort);
  return url.toString();
}

export function targetOf(databaseUrl: string): { host: string; port: number } {
  const url = new URL(databaseUrl);
  return { host: url.hostname, port: Number(url.port || 5432) };
}
