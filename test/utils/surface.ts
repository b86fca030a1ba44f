import { DEFAULT_API_SURFACE } from '../../src/config/environment';

/** The platform's surface this run of the suite calls (`GUESTY_API_SURFACE=legacy npm test` runs the legacy one). */
export const SURFACE: 'current' | 'legacy' = process.env.GUESTY_API_SURFACE === 'legacy' ? 'legacy' : DEFAULT_API_SURFACE;

/** What a test expects on each surface, where the surfaces differ by design (how many reads a route costs). */
export function onSurface<T>(expected: { current: T; legacy: T }): T {
  return expected[SURFACE];
}
