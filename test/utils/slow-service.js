/*
 * The built service started exactly as main.ts starts it, plus one slow probe route, so the
 * SIGTERM drain can be observed with a request really in flight.
 */
'use strict';
const { Controller, Get, Module } = require('@nestjs/common');
const { bootstrap } = require('../../dist/src/main');

class SlowController {
  async slow() {
    process.stdout.write(`${JSON.stringify({ msg: 'slow request started' })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return { finished: true };
  }
}
Controller('test')(SlowController);
Get('slow')(SlowController.prototype, 'slow', Object.getOwnPropertyDescriptor(SlowController.prototype, 'slow'));

class SlowModule {}
Module({ controllers: [SlowController] })(SlowModule);

void bootstrap({ extraModules: [SlowModule] });
