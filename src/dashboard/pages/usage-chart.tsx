import type { UsageRow } from '../../platform/points/ledger-reads.ts';
import { formatPoints } from '../format.ts';

// Points spent per day as a bar chart drawn on the server (SVG: no script, nothing inline the
// CSP would refuse; colours come from the stylesheet). Each bar carries its day and amount as a
// title, and the whole chart a label, for screen readers.

const WIDTH = 600;
const HEIGHT = 180;
// Room for the largest day's figure above the bars and the dates below them.
const TOP = 20;
const AXIS = 20;

export function UsageChart(props: { days: string[]; usage: UsageRow[]; label: string }) {
  const perDay = new Map<string, number>();
  for (const row of props.usage) perDay.set(row.day, (perDay.get(row.day) ?? 0) + row.points);
  const most = Math.max(1, ...perDay.values());
  const slot = WIDTH / props.days.length;
  const barWidth = Math.max(2, slot * 0.7);
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT + AXIS}`} role="img"
      aria-label={props.label}>
      <line class="axis" x1="0" y1={HEIGHT} x2={WIDTH} y2={HEIGHT} />
      {props.days.map((day, index) => {
        const points = perDay.get(day) ?? 0;
        const height = Math.round((points / most) * (HEIGHT - TOP));
        return (
          <rect key={day} class="bar" x={(index * slot + (slot - barWidth) / 2).toFixed(1)}
            y={HEIGHT - height} width={barWidth.toFixed(1)} height={height}>
            <title>{`${day}: ${formatPoints(points)}`}</title>
          </rect>
        );
      })}
      {[0, props.days.length - 1].map((index) => (
        <text key={index} x={index === 0 ? 0 : WIDTH} y={HEIGHT + 16}
          text-anchor={index === 0 ? 'start' : 'end'}>{props.days[index]}</text>
      ))}
      <line class="axis" x1="0" y1={TOP} x2={WIDTH} y2={TOP} />
      <text x="0" y={TOP - 6}>{formatPoints(most)}</text>
    </svg>
  );
}

// The `count` Seoul dates that end with `today`, oldest first.
export function lastDays(today: string, count: number): string[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  return Array.from({ length: count }, (_, index) =>
    new Date(end - (count - 1 - index) * 86_400_000).toISOString().slice(0, 10));
}
