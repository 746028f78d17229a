import type { SchoolPackage } from "../../src/shared/customApparel/content.ts";
import { PlayPauseButton, useRotation } from "../rotation.tsx";

/** School Apparel Packages: four school cards whose pictures rotate together (the spec's 3 s). */
export default function SchoolPackages({ schools, intervalMs }: { schools: SchoolPackage[]; intervalMs: number }) {
  const imageCount = Math.max(1, ...schools.map((s) => s.images.length));
  const r = useRotation({ count: imageCount, intervalMs });
  return (
    <div className="school-packages" {...r.rootProps} role="group" aria-label="School apparel packages">
      {r.enhanced ? (
        <div className="rotator-bar">
          <PlayPauseButton playing={r.playing} onToggle={r.togglePlaying} label="school pictures" />
        </div>
      ) : null}
      <div className="grid grid-4">
        {schools.map((school) => {
          const current = r.index % school.images.length;
          return (
            <article className="card school-card" key={school.name}>
              <div className="school-images" aria-live={r.rotating ? "off" : "polite"}>
                {school.images.map((img, i) => (
                  <img key={img.image} src={img.image} alt={img.name} width={480} height={480} loading="lazy"
                    className={r.enhanced && i !== current ? "is-hidden" : undefined} hidden={r.enhanced && i !== current} />
                ))}
              </div>
              <div className="card-body">
                <h3>{school.name} {school.mascot}</h3>
                <p className="swatches">
                  {school.schoolColors.map((c) => (
                    <span key={c.name} className="swatch-chip"><span className="swatch-dot" style={{ background: c.hex }} aria-hidden="true" />{c.name}</span>
                  ))}
                </p>
                <p className="muted">{school.description}</p>
                <ul className="tag-list">{school.items.map((item) => <li key={item}>{item}</li>)}</ul>
              </div>
            </article>
          );
        })}
      </div>
    </div>
  );
}
