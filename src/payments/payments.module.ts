import { Module } from '@nestjs/common';
import { GuestyModule } from '../guesty/guesty.module';
import { PaymentProviders } from './payment-providers';

@Module({
  imports: [GuestyModule],
  providers: [PaymentProviders],
  exports: [PaymentProviders],
})
export class PaymentsModule {}
