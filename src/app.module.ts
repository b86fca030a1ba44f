import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AppConfig } from './config/app-config';
import { ProblemDetailsFilter } from './common/errors/problem-details.filter';
import { createValidationPipe } from './common/http/validation';
import { AuthModule } from './auth/auth.module';
import { BookingModule } from './booking/booking.module';
import { CheckoutModule } from './checkout/checkout.module';
import { Clock, SystemClock } from './primitives/clock';
import { UpstreamModule } from './upstream/upstream.module';
import { HealthModule } from './health/health.module';
import { InvoicesModule } from './invoices/invoices.module';
import { MetricsModule } from './metrics/metrics.module';
import { RedisModule } from './redis/redis.module';
import { PaymentsModule } from './payments/payments.module';
import { ReservationsModule } from './reservations/reservations.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { EmbedModule } from './embed/embed.module';
import { ProductEventsModule } from './common/events/product-events.module';

/**
 * The whole service for one validated configuration. Global pipe and filter are APP_* providers so
 * that every app built from this module, tests included, behaves the same.
 */
@Global()
@Module({})
export class AppModule {
  static register(config: AppConfig, extraModules: (Type | DynamicModule)[] = [], clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: AppModule,
      global: true,
      exports: [Clock],
      imports: [
        // Configuration was read and validated once, from the environment, in config/.
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, skipProcessEnv: true, load: [() => ({ ...config })] }),
        ProductEventsModule,
        RedisModule,
        MetricsModule,
        HealthModule,
        UpstreamModule,
        AuthModule,
        CheckoutModule,
        PaymentsModule,
        BookingModule,
        InvoicesModule,
        ReservationsModule,
        WebhooksModule,
        EmbedModule,
        ...extraModules,
      ],
      providers: [
        { provide: Clock, useValue: clock },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
      ],
    };
  }
}
