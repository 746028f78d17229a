import type { PortfolioSet } from "../../src/shared/customApparel/content.ts";
import { Dots, PlayPauseButton, useRotation } from "../rotation.tsx";

/** Design Portfolio: sets of designs rotating every 4 s. */
export default function PortfolioSets({ sets, intervalMs }: { sets: PortfolioSet[]; intervalMs: number }) {
  const r = useRotation({ count: sets.length, intervalMs });
  return (
    <div className="portfolio-sets rotator" {...r.rootProps} role="region" aria-roledescription="carousel" aria-label="Design portfolio sets">
      {r.enhanced ? (
        <div className="rotator-bar">
          <Dots count={sets.length} index={r.index} onPick={r.setIndex} labelFor={(i) => `Show ${sets[i]!.name}`} />
          <PlayPauseButton playing={r.playing} onToggle={r.togglePlaying} label="design portfolio" />
        </div>
      ) : null}
      <div className="rotator-slides" aria-live={r.rotating ? "off" : "polite"}>
        {sets.map((set, s) => (
          <section key={set.name} className="portfolio-set" role="group" aria-roledescription="slide"
            aria-label={`${s + 1} of ${sets.length}: ${set.name}`} hidden={r.enhanced && s !== r.index}>
            <h3>{set.name}</h3>
            <p className="muted">{set.description}</p>
            <div className="portfolio-set-grid">
              {set.designs.map((d) => (
                <figure key={d.image}>
                  <img src={d.image} alt={d.name} width={480} height={480} loading="lazy" />
                  <figcaption>{d.name}</figcaption>
                </figure>
              ))}
            </div>
          </section>
        ))}
      </div>
    </div>
  );
}
