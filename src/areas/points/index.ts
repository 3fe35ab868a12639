import type { AreaModule } from '../../platform/module.ts';
import type { Platform } from '../../platform/platform.ts';
import { registerPointsRoutes } from './routes.ts';

// The point balance of the calling key's environment (docs/points.md). The ledger itself is a
// platform mechanism (src/platform/points); this area only shows it.
export function createPointsModule(platform: Platform): AreaModule {
  return {
    name: 'points',
    routes: async (v1) => v1.register(registerPointsRoutes, { points: platform.points }),
  };
}
