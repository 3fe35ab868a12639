// Placeholder until the holiday calendar lands.
export function seoulDate(now: Date): string {
  return new Date(now.getTime() + 9 * 3_600_000).toISOString().slice(0, 10);
}
export function issueDeadline(writeDate: string): string {
  const [year, month] = writeDate.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, month, 10)).toISOString().slice(0, 10);
}
