/**
 * Auto-rotation shared by the custom apparel carousels. Before hydration (and without JavaScript) every slide
 * is shown; once enhanced, one slide at a time advances every `intervalMs`. Rotation pauses while the pointer
 * is over the carousel or focus is inside it, starts stopped under prefers-reduced-motion, and has a
 * pause/play button (WCAG 2.2.2).
 */
import { useEffect, useState, type FocusEvent } from "react";
import { useHydrated } from "./useHydrated.ts";

export function useRotation(opts: { count: number; intervalMs: number; onAdvance?: () => void }) {
  const [index, setIndex] = useState(0);
  const enhanced = useHydrated();
  const [playing, setPlaying] = useState(true);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);

  useEffect(() => {
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
    // eslint-disable-next-line react-hooks/set-state-in-effect -- reads the browser (window) after hydration: the server render cannot know it
    if (reduced.matches) setPlaying(false);
    const onChange = () => {
      if (reduced.matches) setPlaying(false);
    };
    reduced.addEventListener("change", onChange);
    return () => reduced.removeEventListener("change", onChange);
  }, []);

  const rotating = enhanced && playing && !hovered && !focused && opts.count > 1;

  // A timeout per slide: a manual change restarts the full interval.
  useEffect(() => {
    if (!rotating) return;
    const timer = setTimeout(() => {
      setIndex((i) => (i + 1) % opts.count);
      opts.onAdvance?.();
    }, opts.intervalMs);
    return () => clearTimeout(timer);
    // Deliberate: opts is a new object (and onAdvance a new function) each render; depending on them would restart the timer.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rotating, index, opts.count, opts.intervalMs]);

  return {
    index,
    setIndex: (i: number) => setIndex(((i % opts.count) + opts.count) % opts.count),
    enhanced,
    playing,
    rotating,
    togglePlaying: () => setPlaying((p) => !p),
    /** Spread on the carousel's root element. */
    rootProps: {
      onMouseEnter: () => setHovered(true),
      onMouseLeave: () => setHovered(false),
      onFocus: () => setFocused(true),
      onBlur: (e: FocusEvent<HTMLElement>) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false);
      },
      "data-enhanced": enhanced ? "true" : "false",
      "data-rotating": rotating ? "true" : "false",
    },
  };
}

export function PlayPauseButton({ playing, onToggle, label }: { playing: boolean; onToggle: () => void; label: string }) {
  return (
    <button type="button" className="rotator-toggle" onClick={onToggle} aria-label={`${playing ? "Pause" : "Play"} ${label}`}>
      <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false" fill="currentColor">
        {playing ? <path d="M6 4h4v16H6zM14 4h4v16h-4z" /> : <path d="M7 4l13 8-13 8z" />}
      </svg>
    </button>
  );
}

export function Dots({ count, index, onPick, labelFor }: { count: number; index: number; onPick: (i: number) => void; labelFor: (i: number) => string }) {
  return (
    <div className="rotator-dots">
      {Array.from({ length: count }, (_, i) => (
        <button key={i} type="button" className="rotator-dot" aria-label={labelFor(i)} aria-current={i === index ? "true" : undefined} onClick={() => onPick(i)}>
          <span aria-hidden="true" />
        </button>
      ))}
    </div>
  );
}
