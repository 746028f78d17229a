/** Label and value pairs, one row each (`.summary-rows`): a registration's facts, an athlete's stored details. */
export function SummaryRows({ rows, className }: { rows: [string, string][]; className?: string }) {
  return (
    <dl className={className ? `summary-rows ${className}` : "summary-rows"}>
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
