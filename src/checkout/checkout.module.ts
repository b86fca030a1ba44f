import { Module } from '@nestjs/common';
import { GuestyModule } from '../guesty/guesty.module';
import { PaymentsModule } from '../payments/payments.module';
import { ListingSummaries } from './listing-summaries.service';
import { ListingsController } from './listings.controller';

@Module({
  imports: [GuestyModule, PaymentsModule],
  controllers: [ListingsController],
  providers: [ListingSummaries],
})
export class CheckoutModule {}
