import { useState } from "react";
import type { ApparelSet } from "../../src/shared/customApparel/content.ts";
import { Dots, PlayPauseButton, useRotation } from "../rotation.tsx";

/** Complete Custom Apparel Sets: one set at a time with item thumbnails and dots; every 10 s the next set, from its first item. */
export default function ApparelSets({ sets, intervalMs }: { sets: ApparelSet[]; intervalMs: number }) {
  const [item, setItem] = useState(0);
  const r = useRotation({ count: sets.length, intervalMs, onAdvance: () => setItem(0) });
  const pickSet = (i: number) => {
    r.setIndex(i);
    setItem(0);
  };
  return (
    <div className="apparel-sets rotator" {...r.rootProps} role="region" aria-roledescription="carousel" aria-label="Complete custom apparel sets">
      {r.enhanced ? (
        <div className="rotator-bar">
          <button type="button" className="rotator-arrow" aria-label="Previous set" onClick={() => pickSet(r.index - 1)}>‹</button>
          <Dots count={sets.length} index={r.index} onPick={pickSet} labelFor={(i) => `Show ${sets[i]!.name}`} />
          <button type="button" className="rotator-arrow" aria-label="Next set" onClick={() => pickSet(r.index + 1)}>›</button>
          <PlayPauseButton playing={r.playing} onToggle={r.togglePlaying} label="apparel sets" />
        </div>
      ) : null}
      <div className="rotator-slides" aria-live={r.rotating ? "off" : "polite"}>
        {sets.map((set, s) => {
          const active = s === r.index;
          const shownItem = active ? Math.min(item, set.items.length - 1) : 0;
          const main = set.items[shownItem]!;
          return (
            <article key={set.name} className="apparel-set card" role="group" aria-roledescription="slide"
              aria-label={`${s + 1} of ${sets.length}: ${set.name}`} hidden={r.enhanced && !active} style={{ borderTopColor: set.teamColor }}>
              {r.enhanced ? (
                <img className="apparel-set-main" src={main.image} alt={main.name} width={480} height={480} />
              ) : null}
              <div className="card-body">
                <h3>{set.name}</h3>
                <p className="muted">{set.description}</p>
                <ul className="apparel-set-items">
                  {set.items.map((it, i) => (
                    <li key={it.image}>
                      {r.enhanced ? (
                        <button type="button" className="thumb" aria-label={`Show ${it.name}`} aria-pressed={i === shownItem} onClick={() => setItem(i)}>
                          <img src={it.image} alt="" width={96} height={96} />
                        </button>
                      ) : (
                        <figure className="thumb-static">
                          <img src={it.image} alt={it.name} width={240} height={240} loading="lazy" />
                          <figcaption>{it.name}</figcaption>
                        </figure>
                      )}
                    </li>
                  ))}
                </ul>
                {r.enhanced ? <p className="apparel-set-caption">{main.name}</p> : null}
              </div>
            </article>
          );
        })}
      </div>
    </div>
  );
}
