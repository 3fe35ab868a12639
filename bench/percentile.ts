// The nearest-rank percentile of ascending values: the smallest value with at least `fraction`
// of them at or below it; 0 for no values.
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}
