// Imported first by main.ts, before anything that loads http or ioredis.
import { tracingConfig } from '../../config/tracing-config';
import { startTracing } from './start-tracing';

startTracing(tracingConfig());
