import { randomBytes } from 'node:crypto';
import { AppConfig } from '../../src/config/app-config';
import { parseConfiguration } from '../../src/config/parse-configuration';

/** The real Redis found by scripts/test.js (REDIS_URL, 127.0.0.1:6379 or one it started). */
export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** A key prefix of the test's own: tests share one Redis and must never see each other's keys. */
export function testKeyPrefix(): string {
  return `test:${randomBytes(6).toString('hex')}:`;
}

/** A configuration as the service would read it from this environment, with test defaults. */
export function testConfig(env: Record<string, string | undefined> = {}): AppConfig {
  return parseConfiguration({
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: 'info',
    LOG_PRETTY: 'false',
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: testKeyPrefix(),
    SANDBOX: 'true',
    // Spacing is tested where it matters; elsewhere it would only slow every attach-then-extras test.
    RESERVATION_WRITE_SPACING_MS: '100',
    // The whole suite runs on either surface (docs/upstream.md): `GUESTY_API_SURFACE=legacy npm test`.
    GUESTY_API_SURFACE: process.env.GUESTY_API_SURFACE,
    ...env,
  });
}
