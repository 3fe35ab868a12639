import type { AreaModule } from '../../platform/module.ts';
import type { Platform } from '../../platform/platform.ts';
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
export function createPointsModule(platform: Platform): AreaModule {
  return {
    name: 'points',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerPointsRoutes, { points: platform.points }),
  };
}
