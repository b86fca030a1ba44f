import path from 'node:path';
import { BUILT_MAIN, ROOT, spawnService } from '../utils/service-process';
import { testKeyPrefix, testRedisUrl } from '../utils/test-config';

const PRODUCTION = {
  NODE_ENV: 'production',
  GUESTY_CLIENT_ID: 'client-id',
  GUESTY_CLIENT_SECRET: 'do-not-print-this-secret',
  PUBLIC_BASE_URL: 'https://checkout.example.com',
  CHECKOUT_RETURN_URL: 'https://booking.example.com/checkout/done',
  REDIS_URL: 'redis://:redis-password-here@127.0.0.1:6379',
};

describe('bad configuration stops the process with one clear line per problem', () => {
  const cases: { name: string; env: Record<string, string>; variable: string }[] = [
    { name: 'PORT=abc', env: { PORT: 'abc' }, variable: 'PORT' },
    { name: 'REDIS_URL=nope', env: { REDIS_URL: 'nope' }, variable: 'REDIS_URL' },
    { name: "CHECKOUT_EXTRAS='{'", env: { CHECKOUT_EXTRAS: '{' }, variable: 'CHECKOUT_EXTRAS' },
    { name: 'production without REDIS_URL', env: { ...PRODUCTION, REDIS_URL: '' }, variable: 'REDIS_URL' },
    { name: 'production with SANDBOX=true', env: { ...PRODUCTION, SANDBOX: 'true' }, variable: 'SANDBOX' },
    { name: 'CORS_ORIGINS=*', env: { CORS_ORIGINS: '*' }, variable: 'CORS_ORIGINS' },
    { name: 'PUBLIC_BASE_URL=ftp://x', env: { PUBLIC_BASE_URL: 'ftp://x' }, variable: 'PUBLIC_BASE_URL' },
    { name: 'a client secret without its id', env: { GUESTY_CLIENT_SECRET: 'do-not-print-this-secret' }, variable: 'GUESTY_CLIENT_ID' },
  ];

  it.each(cases)('$name', async ({ env, variable }) => {
    const service = spawnService(BUILT_MAIN, { LOG_PRETTY: 'false', ...env });
    expect(await service.exited).toBe(1);
    expect(service.stderr.length).toBe(1);
    expect(service.stderr[0]).toMatch(new RegExp(`^Configuration error: ${variable}\\b`));
    const everything = [...service.stderr, ...service.stdout].join('\n');
    expect(everything).not.toMatch(/do-not-print-this-secret|redis-password-here|\bat .+\.js:\d+/);
  });

  it('lists every problem at once', async () => {
    const service = spawnService(BUILT_MAIN, { PORT: 'abc', CORS_ORIGINS: '*', LOG_LEVEL: 'loud' });
    expect(await service.exited).toBe(1);
    expect(service.stderr.map((line) => line.split(' ')[2]).sort()).toEqual(['CORS_ORIGINS', 'LOG_LEVEL', 'PORT']);
  });
});

describe('SIGTERM drains the service', () => {
  it('turns readiness 503 at once, lets the in-flight request finish, and exits 0', async () => {
    const service = spawnService(path.join(ROOT, 'test/utils/slow-service.js'), {
      PORT: '0',
      LOG_PRETTY: 'false',
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: testKeyPrefix(),
      SHUTDOWN_DELAY_MS: '1000',
      SHUTDOWN_DRAIN_MS: '5000',
    });
    const listening = await service.waitForLog((entry) => entry.msg === 'booking checkout service listening');
    const base = `http://127.0.0.1:${listening.port as number}`;
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);

    const slow = fetch(`${base}/test/slow`);
    await service.waitForLog((entry) => entry.msg === 'slow request started');
    service.child.kill('SIGTERM');
    await service.waitForLog((entry) => String(entry.msg).startsWith('shutting down'));

    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { code: string }).code).toBe('shutting_down');

    const finished = await slow;
    expect(finished.status).toBe(200);
    expect(await finished.json()).toEqual({ finished: true });
    expect(await service.exited).toBe(0);
  });
});
