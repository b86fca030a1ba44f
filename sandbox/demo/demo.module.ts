import { DynamicModule, Module } from '@nestjs/common';
import { RunningSandbox } from '../types';
import { DemoController } from './demo.controller';
import { EmbeddedSandbox } from './embedded-sandbox';

/** Registered only in sandbox mode, when the simulator runs in this process: elsewhere /demo is 404. */
@Module({})
export class DemoModule {
  static forSandbox(sandbox: RunningSandbox): DynamicModule {
    return {
      module: DemoModule,
      controllers: [DemoController],
      providers: [{ provide: EmbeddedSandbox, useValue: sandbox }],
    };
  }
}
