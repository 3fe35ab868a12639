import { ConfigError, parseOverrides } from '../../config.ts';
import {
  DEFAULT_RATE_LIMIT,
  isOperation,
  OPERATIONS,
  type Operation,
  type RateLimitPolicy,
} from '../operations.ts';

// The rate-limit policy of every operation: the operation table's own rows, the default, and
// the operator's RATE_LIMIT_OVERRIDES on top (docs/limits.md).

// The operation table's own policies; every other operation has the default policy.
const DEFAULT_RATE_LIMITS: Record<string, RateLimitPolicy> = Object.fromEntries(
  Object.entries(OPERATIONS as Record<Operation, { rateLimit?: RateLimitPolicy }>)
    .flatMap(([name, row]) => (row.rateLimit ? [[name, row.rateLimit]] : [])),
);
const POLICY_LIMIT_MAX = 1_000_000;
const POLICY_WINDOW_SECONDS_MAX = 86_400;

function isPolicy(value: unknown): value is RateLimitPolicy {
  const policy = value as RateLimitPolicy;
  return (
    typeof value === 'object' && value !== null &&
    Number.isSafeInteger(policy.limit) && policy.limit >= 1 && policy.limit <= POLICY_LIMIT_MAX &&
    Number.isSafeInteger(policy.windowSeconds) && policy.windowSeconds >= 1 &&
    policy.windowSeconds <= POLICY_WINDOW_SECONDS_MAX
  );
}

export function buildRateLimitPolicies(overridesJson: string): Record<string, RateLimitPolicy> {
  const overrides = parseOverrides('RATE_LIMIT_OVERRIDES', overridesJson, isPolicy);
  for (const name of Object.keys(overrides)) {
    if (name !== 'default' && !isOperation(name)) {
      throw new ConfigError(`RATE_LIMIT_OVERRIDES: unknown operation "${name}"`);
    }
  }
  return { default: DEFAULT_RATE_LIMIT, ...DEFAULT_RATE_LIMITS, ...overrides };
}

export function policyOf(
  policies: Record<string, RateLimitPolicy>,
  operation: string,
): RateLimitPolicy {
  return policies[operation] ?? policies.default ?? DEFAULT_RATE_LIMIT;
}
