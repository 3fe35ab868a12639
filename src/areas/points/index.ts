import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import { createLedgerPages, type LedgerPages } from '../../platform/points/service.ts';

export type { LedgerPages };
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { registerPointsRoutes } from './routes.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Points',
    description: 'Point balances and the ledger of their movements.',
    guides: [
      { path: 'docs/points.md', title: 'Points' },
    ],
  },
];

// The point balance and the ledger of the calling key's environment (docs/points.md). The
// ledger is a platform mechanism (src/platform/points); this area only shows it.
export type PointsModule = AreaModule & {
  // The ledger a page at a time, for GET /v1/points/ledger and the dashboard's points page.
  ledger: LedgerPages;
};

export function createPointsModule(platform: AreaPlatform): PointsModule {
  const ledger = createLedgerPages(platform.database.db, platform.cursors);
  return {
    name: 'points',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerPointsRoutes, { points: platform.points, ledger }),
    ledger,
  };
}
