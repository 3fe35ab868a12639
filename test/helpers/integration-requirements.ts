import net from 'node:net';

// The integration project skips what needs PostgreSQL or Redis when they are absent, which suits
// a developer's machine. In CI a skip would pass unnoticed, so there a missing or unreachable
// PostgreSQL or Redis fails the run before any test.

const CONNECT_TIMEOUT_MS = 5_000;

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const defaultPort = url.startsWith('redis') ? 6379 : 5432;
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort),
      timeout: CONNECT_TIMEOUT_MS });
    const end = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => end(true));
    socket.once('timeout', () => end(false));
    socket.once('error', () => end(false));
  });
}

export async function requireServicesInCi(env: NodeJS.ProcessEnv): Promise<void> {
  if (!env.CI) return;
  for (const name of ['DATABASE_URL', 'REDIS_URL'] as const) {
    const url = env[name];
    if (!url) throw new Error(`CI is set but ${name} is not: the integration tests need it`);
    if (!(await reachable(url))) {
      throw new Error(`CI is set but ${name} (${new URL(url).host}) does not answer`);
    }
  }
}

export default async function setup(): Promise<void> {
  await requireServicesInCi(process.env);
}
