import type { koFailures } from '../ko/failures.ts';

export const enFailures: { readonly [K in keyof typeof koFailures]: string } = {
  'home.failures': 'Recent failures',
  'home.failuresNone': 'Nothing failed recently.',
  'home.failedInvoices': 'Failed tax invoices',
  'home.failedDeliveries': 'Failed webhook deliveries',
  'home.failureWhen': 'When',
  'home.failureWhat': 'What',
  'home.failureWhy': 'Why',
};
