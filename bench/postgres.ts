import pg from 'pg';

// The benchmark's administrative connections to the server's PostgreSQL.

// The URL of another database on the same server.
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// Runs `work` on a connection of its own, closed afterwards.
export async function withClient<T>(
  url: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

// A new, empty database on the server for one benchmark run, and how to drop it afterwards.
export async function createScratchDatabase(serverUrl: string, prefix: string) {
  const name = `${prefix}_${process.pid}`;
  await withClient(serverUrl, (client) => client.query(`create database ${name}`));
  return {
    url: databaseUrl(serverUrl, name),
    drop: () => withClient(serverUrl, (client) =>
      client.query(`drop database if exists ${name} with (force)`)),
  };
}
