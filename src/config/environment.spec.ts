import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateSync } from 'class-validator';
import { Environment, ENVIRONMENT_VARIABLES } from './environment';
import { ConfigurationError, parseConfiguration } from './parse-configuration';

describe('the environment schema', () => {
  it('declares every variable .env.example lists, so none is silently ignored', () => {
    const listed = readFileSync(join(__dirname, '..', '..', '.env.example'), 'utf8')
      .split('\n')
      .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(listed.length).toBeGreaterThan(40);
    expect(listed.filter((name) => !ENVIRONMENT_VARIABLES.includes(name))).toEqual([]);
  });

  it('passes its own defaults', () => {
    expect(validateSync(new Environment())).toEqual([]);
  });

  it("lists each variable's own problems in the schema's order, then the rules between variables", () => {
    const env = { NODE_ENV: 'production', GUESTY_CLIENT_ID: 'id', GUESTY_CLIENT_SECRET: 'secret', BOOKING_MAX_NIGHTS: '0', PORT: 'x' };
    let problems: string[] = [];
    try {
      parseConfiguration(env);
    } catch (error) {
      problems = (error as ConfigurationError).problems;
    }
    expect(problems.map((line) => line.split(' ')[0])).toEqual(['PORT', 'BOOKING_MAX_NIGHTS', 'REDIS_URL', 'CHECKOUT_RETURN_URL']);
  });
});
