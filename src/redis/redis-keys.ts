import { createHash } from 'node:crypto';

/**
 * Every Redis key the service uses is built here, under the configured prefix, so that several
 * deployments or test runs can share one Redis and a reader can see the whole key space at once.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** A short, stable digest: identifies a client id or a body without storing it in clear. */
  static digest(value: string): string {
    return createHash('sha256').update(value).digest('hex').slice(0, 24);
  }

  /** Written by readiness to prove Redis accepts writes, not only pings. */
  readinessProbe(): string {
    return `${this.prefix}health:probe`;
  }
}
