import { SandboxControl, SandboxUrls } from '../types';

/** The simulator running in this process (sandbox mode only): what the demo page may steer. */
export abstract class EmbeddedSandbox {
  abstract readonly urls: SandboxUrls;
  abstract readonly control: SandboxControl;
}
