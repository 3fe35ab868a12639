import { createAreaModules } from '../app.ts';
import type { Config } from '../config.ts';
import type { ResealCount } from '../platform/reseal.ts';
import { withPlatform } from './admin.ts';
import { CliError, printResult } from './output.ts';

// `etax reseal`: after the encryption key was rotated, seals every secret at rest again with the
// current ENCRYPTION_KEY, opening each with whichever of it and
// ENCRYPTION_PREVIOUS_KEYS sealed it (docs/operations.md § Rotating the encryption
// key). The areas name what they keep sealed (AreaModule.resealSecrets), so the command builds
// them over the platform, without the server and without running any job.

async function resealEveryArea(config: Config): Promise<ResealCount[]> {
  return withPlatform(config, async (platform) => {
    const { list, sealing } = await createAreaModules(platform);
    try {
      const counts: ResealCount[] = [];
      for (const module of list) counts.push(...(await module.resealSecrets?.() ?? []));
      // The dashboard's users' TOTP secrets, sealed with the same key.
      const { resealTwoFactorSecrets } = await import('../dashboard/two-factor/service.ts');
      counts.push(...await resealTwoFactorSecrets(platform.database.db, sealing));
      return counts;
    } finally {
      for (const module of list) await module.close?.();
    }
  });
}

export async function reseal(config: Config, options: { json?: boolean }) {
  const columns = await resealEveryArea(config);
  const lines = columns.map(({ column, resealed, unreadable }) =>
    `${column}: ${resealed} sealed again` + (unreadable > 0 ? `, ${unreadable} unreadable` : ''));
  printResult(Boolean(options.json), { columns }, lines.join('\n'));
  const unreadable = columns.reduce((sum, column) => sum + column.unreadable, 0);
  // Left as they were: only a key that is no longer configured opens them. The exit status says
  // so before anyone removes the previous keys.
  if (unreadable > 0) {
    throw new CliError(`${unreadable} sealed values open with none of the configured keys`);
  }
}
