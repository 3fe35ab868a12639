import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLogger } from '../../src/platform/lazy-request-logger.ts';

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) {
    lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
    done();
  } });
  const logger = pino({ level: 'info', redact: { paths: ['*.password'], censor: '[redacted]' } },
    sink);
  return { logger, lines };
}

describe('the request logger made on first use', () => {
  it('makes no child until something is logged, then logs with the bindings', () => {
    const { logger, lines } = capturedLogger();
    const child = vi.spyOn(logger, 'child');
    const requestLogger = lazyChildLogger(logger, { traceId: 'trace-1' }, {});
    expect(requestLogger.level).toBe('info');
    expect(child).not.toHaveBeenCalled();
    requestLogger.error({ err: new Error('boom'), body: { password: 'secret' } }, 'failed');
    requestLogger.debug('below the level');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ traceId: 'trace-1', msg: 'failed',
      body: { password: '[redacted]' } });
  });

  it('keeps the bindings on a child of the child and follows level changes', () => {
    const { logger, lines } = capturedLogger();
    const requestLogger = lazyChildLogger(logger, { traceId: 'trace-2' }, {});
    requestLogger.level = 'debug';
    requestLogger.debug('now logged');
    requestLogger.child({ step: 'inner' }).info('inner');
    expect(lines).toEqual([
      expect.objectContaining({ traceId: 'trace-2', msg: 'now logged' }),
      expect.objectContaining({ traceId: 'trace-2', step: 'inner', msg: 'inner' }),
    ]);
    expect(logger.level).toBe('info');
  });
});
