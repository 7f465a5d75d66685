import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';
import type { Logger } from 'pino';

// Fastify gives every request a child logger carrying its request id. A pino
// child costs about two kilobytes (a bound function per level, its bindings
// serialized), which every open request holds, thousands of them while
// long-polls wait. This one is a few words until a line is actually written
// at an enabled level: then the real child is made, once, and used from then on.

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];

class LazyChildLogger {
  private real: Logger | null = null;
  private readonly parent: Logger;
  private readonly bindings: Bindings;
  private readonly opts: ChildLoggerOptions;

  constructor(parent: Logger, bindings: Bindings, opts: ChildLoggerOptions) {
    this.parent = parent;
    this.bindings = bindings;
    this.opts = opts;
  }

  private logger(): Logger {
    return (this.real ??= this.parent.child(this.bindings, this.opts));
  }

  get level(): string {
    return (this.real ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  private write(level: Level, args: unknown[]): void {
    const enabled = this.real ?? this.parent;
    if (!enabled.isLevelEnabled(level)) return;
    (this.logger()[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void { this.write('fatal', args); }
  error(...args: unknown[]): void { this.write('error', args); }
  warn(...args: unknown[]): void { this.write('warn', args); }
  info(...args: unknown[]): void { this.write('info', args); }
  debug(...args: unknown[]): void { this.write('debug', args); }
  trace(...args: unknown[]): void { this.write('trace', args); }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return (this.real ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, opts);
  }
}

/**
 * Fastify's childLoggerFactory: a request's logger, made real on its first
 * line. A route with its own log level gets its real child at once.
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  const parent = logger as Logger;
  if (opts.level !== undefined) return parent.child(bindings, opts);
  return new LazyChildLogger(parent, bindings, opts) as unknown as FastifyBaseLogger;
}
