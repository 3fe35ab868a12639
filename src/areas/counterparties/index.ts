import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import type { RegistrationStatusService } from '../businesses/index.ts';
import { registerCounterpartyRoutes } from './routes.ts';
import { createStatusSchedule, statusScheduleJob } from './schedule.ts';
import { createCounterpartiesService, type CounterpartiesService } from './service.ts';

// The counterparty book (docs/counterparties.md): the businesses an account issues to, their
// import from CSV or xlsx files with a preview, and their registration status, checked on
// request and on a schedule through the registration status lookup. The tax-invoices module
// takes `service.recipientOf` to resolve an issuance that names a counterparty.
//
//   schemas.ts   the counterparty (a tax invoice recipient's fields), its import
//   import.ts    the columns of a file and the check of its rows
//   service.ts   the rules; store.ts the SQL; tables.ts the tables
//   schedule.ts  the hourly job that checks due statuses again

const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Counterparties',
    description: 'The counterparty book (거래처): businesses an account issues to, their ' +
      'import from files and their registration status.',
    guides: [{ path: 'docs/counterparties.md', title: 'Counterparties' }],
  },
];

// What the dashboard uses besides the service: the file's columns, its limits, the template.
export { IMPORT_COLUMNS, IMPORT_EXAMPLE_ROW } from './import.ts';
export { CounterpartyChanges, CounterpartyInput, type CounterpartyView } from './schemas.ts';
export type { CounterpartiesService, CounterpartyImportView } from './service.ts';

export type CounterpartiesModule = AreaModule & {
  service: CounterpartiesService;
  // Checks the statuses that are due now (the schedule's tick), for tests and the CLI.
  refreshDueStatuses(): Promise<number>;
};

export function createCounterpartiesModule(platform: AreaPlatform,
  deps: { registrationStatus: RegistrationStatusService }): CounterpartiesModule {
  const { db } = platform.database;
  const service = createCounterpartiesService({ db, cursors: platform.cursors,
    registrationStatus: deps.registrationStatus, now: platform.outside.now });
  const schedule = createStatusSchedule({ db, service, now: platform.outside.now,
    log: platform.log });
  return {
    name: 'counterparties',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerCounterpartyRoutes, { counterparties: service }),
    jobs: [statusScheduleJob(schedule) as NonNullable<AreaModule['jobs']>[number]],
    service,
    refreshDueStatuses: schedule.tick,
  };
}
