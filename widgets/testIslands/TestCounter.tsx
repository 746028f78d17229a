import { useId, useState } from "react";

/** Test-only widget: proves server render, hydration and interactivity (mounted on /__test routes only). */
export default function TestCounter({ start, label }: { start: number; label: string }) {
  const [count, setCount] = useState(start);
  const id = useId();
  return (
    <div className="test-counter">
      <span id={id}>{label}</span>
      <output aria-labelledby={id} data-testid="count">{count}</output>
      <button type="button" className="btn btn-secondary" onClick={() => setCount((c) => c + 1)}>
        Add one
      </button>
    </div>
  );
}
