import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// The pieces operators put in front of etax, from Debian, run by the test itself on loopback
// ports with their configuration in a temporary folder: PgBouncer in transaction pooling mode in
// front of PostgreSQL, and HAProxy in front of the `etax serve` processes with /readyz health
// checks. The system's own services are never touched.

const HOST = '127.0.0.1';
export const PGBOUNCER_BINARY = '/usr/sbin/pgbouncer';
export const HAPROXY_BINARY = '/usr/sbin/haproxy';

export type Daemon = { child: ChildProcess; output(): string; stop(): Promise<void> };

function startDaemon(command: string, args: string[], folder: string): Daemon {
  const child = spawn(command, args, { cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function temporaryFolder(): { folder: string; remove(): void } {
  const folder = mkdtempSync(path.join(tmpdir(), 'etax-topology-'));
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

// PgBouncer on `port` in transaction pooling mode, for every database of the PostgreSQL at
// `postgresPort`, with the user `user` let in without a password (as the test PostgreSQL does).
// node-postgres sends the `options` startup parameter (etax's session settings), which
// PgBouncer refuses unless told to ignore it.
export async function startPgBouncer(options: { folder: string; port: number;
  postgresPort: number; user: string }): Promise<Daemon> {
  const { folder, port, postgresPort, user } = options;
  writeFileSync(path.join(folder, 'userlist.txt'), `"${user}" ""\n`);
  writeFileSync(path.join(folder, 'pgbouncer.ini'), `[databases]
* = host=${HOST} port=${postgresPort}

[pgbouncer]
listen_addr = ${HOST}
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${path.join(folder, 'userlist.txt')}
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
ignore_startup_parameters = options,extra_float_digits
server_reset_query =
logfile =
pidfile =
`);
  // PgBouncer refuses to run as root: a root test run starts it as Debian's postgres user,
  // which must read the folder.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chmodSync(folder, 0o755);
  const daemon = startDaemon(PGBOUNCER_BINARY,
    [...(asRoot ? ['-u', 'postgres'] : []), path.join(folder, 'pgbouncer.ini')], folder);
  await waitForPort(port, daemon);
  return daemon;
}

export type Backend = { name: string; port: number };

// HAProxy on `port` balancing round robin over the backends, each checked with GET /readyz
// every 300 ms (down after 2 failures, up after 2 successes). A request refused by a process
// that is shutting down (503), or whose connection fails, is sent again to another process:
// etax answers that 503 before doing any work, so sending it again is safe. Statistics as CSV
// on statsPort at /stats;csv.
export async function startHaproxy(options: { folder: string; port: number; statsPort: number;
  backends: Backend[] }): Promise<Daemon> {
  const { folder, port, statsPort, backends } = options;
  const servers = backends.map((backend) =>
    `  server ${backend.name} ${HOST}:${backend.port} check`).join('\n');
  writeFileSync(path.join(folder, 'haproxy.cfg'), `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  retries 3
  option redispatch 1

frontend api
  bind ${HOST}:${port}
  default_backend etax

frontend stats
  bind ${HOST}:${statsPort}
  stats enable
  stats uri /stats
  stats refresh 1s

backend etax
  balance roundrobin
  retry-on conn-failure empty-response 503
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 300ms fall 2 rise 2
${servers}
`);
  const daemon = startDaemon(HAPROXY_BINARY, ['-db', '-f', path.join(folder, 'haproxy.cfg')],
    folder);
  await waitForPort(port, daemon);
  return daemon;
}

// The status HAProxy gives each server of the backend: UP, DOWN, or a transition such as
// "UP 1/2".
export async function backendStatuses(statsPort: number): Promise<Record<string, string>> {
  const text = await (await fetch(`http://${HOST}:${statsPort}/stats;csv`)).text();
  const [header, ...rows] = text.trim().split('\n');
  const columns = header!.replace(/^# /, '').split(',');
  const statusColumn = columns.indexOf('status');
  const statuses: Record<string, string> = {};
  for (const row of rows) {
    const fields = row.split(',');
    if (fields[0] === 'etax' && !['FRONTEND', 'BACKEND'].includes(fields[1]!)) {
      statuses[fields[1]!] = fields[statusColumn]!;
    }
  }
  return statuses;
}

async function waitForPort(port: number, daemon: Daemon): Promise<void> {
  const net = await import('node:net');
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (daemon.child.exitCode !== null) break;
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, HOST, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(100);
  }
  throw new Error(`nothing listens on ${HOST}:${port}:\n${daemon.output()}`);
}
