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

// PostgreSQL's autovacuum gathers a table's statistics as it fills (after 50 rows and a tenth
// of the table have changed), and the planner picks its indexes by them: without statistics,
// the books' lookup of known approval numbers took a three-column index and read every entry of
// a scope (16.7 ms instead of 0.5 ms for 100 numbers). A server set up with `autovacuum = off`
// (a CI machine's) never gathers them, so there the benchmark does what autovacuum would: it
// analyses the scratch database after each warm-up, when its tables hold rows of the kinds the
// runs write (bench/run.ts).
export async function autovacuumIsOff(url: string): Promise<boolean> {
  const { rows: [row] } = await withClient(url, (client) =>
    client.query<{ autovacuum: string }>('show autovacuum'));
  return row?.autovacuum !== 'on';
}

export async function analyzeDatabase(url: string): Promise<void> {
  await withClient(url, (client) => client.query('analyze'));
}
