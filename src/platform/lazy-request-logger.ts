import type { FastifyBaseLogger } from 'fastify';

// Fastify gives every request a child logger bound to its trace id. pino builds a child's
// bindings at once, through the censoring of secrets (platform.ts), which costs more than
// routing the request; yet a request logs only when something goes wrong. This child is made on
// its first use, with the same bindings and options, so the log lines are the same.

type LogMethod = FastifyBaseLogger['info'];
type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings,
  options: ChildOptions): FastifyBaseLogger {
  let child: FastifyBaseLogger | null = null;
  const real = () => (child ??= parent.child(bindings, options));
  const method = (name: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'):
    LogMethod => ((...args: Parameters<LogMethod>) => real()[name](...args)) as LogMethod;
  return {
    get level() {
      return child?.level ?? parent.level;
    },
    set level(level: string) {
      real().level = level;
    },
    fatal: method('fatal'),
    error: method('error'),
    warn: method('warn'),
    info: method('info'),
    debug: method('debug'),
    trace: method('trace'),
    silent: method('silent'),
    child: (childBindings, childOptions) => real().child(childBindings, childOptions),
  };
}
